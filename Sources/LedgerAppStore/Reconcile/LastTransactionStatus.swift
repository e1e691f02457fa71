import LedgerJSON

/// One subscription's last status (`LastTransactionsItem`): the status and the signed transaction
/// and renewal info, which the caller verifies before mapping them with
/// ``LedgerCore/LedgerRecord/init(status:transaction:renewal:responseEnvironment:evidence:)``.
public struct LastTransactionStatus: Hashable, Sendable {
    /// The subscription.
    public var originalTransactionId: String?
    /// 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    public var status: SubscriptionStatus?
    /// The last signed transaction, a compact JWS.
    public var signedTransactionInfo: String?
    /// The signed renewal info, a compact JWS.
    public var signedRenewalInfo: String?
    /// The JSON this was decoded from.
    public var raw: JSONValue

    /// Decodes an item; `path` names it in errors.
    public init(json: JSONValue, path: String) throws(AppStoreError) {
        let fields = try JSONFields(json, path: path)
        originalTransactionId = try fields.string("originalTransactionId")
        status = try fields.raw("status")
        signedTransactionInfo = try fields.string("signedTransactionInfo")
        signedRenewalInfo = try fields.string("signedRenewalInfo")
        raw = json
    }

    /// The bytes to keep as the evidence of the record made from this item: the item's compact
    /// JSON, which holds both signed payloads (hash it for the record's `evidence`).
    public var evidencePayload: [UInt8] { raw.serializedBytes(.compact) }
}
