import LedgerCore
import LedgerJSON

/// One page of the App Store Server API's Get Transaction History response (`HistoryResponse`; Get Refund
/// History's has the same shape, and a Get Transaction Info response reads as a page of one).
///
/// Each entry of ``signedTransactions`` is a compact JWS the caller verifies like a notification's
/// signed transaction before mapping it with
/// ``LedgerCore/LedgerRecord/init(historyTransaction:responseEnvironment:evidence:)``.
public struct TransactionHistoryResponse: Hashable, Sendable {
    /// The signed transactions (`JWSTransactionDecodedPayload` each), oldest first as Apple pages them.
    public var signedTransactions: [String]
    /// The token for the next page.
    public var revision: String?
    /// Whether more pages follow.
    public var hasMore: Bool?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The app's Apple id.
    public var appAppleId: Int64?
    /// `Sandbox` or `Production`.
    public var environment: LedgerEnvironment?
    /// The JSON this was decoded from.
    public var raw: JSONValue

    /// Decodes a Get Transaction History page.
    public init(json: JSONValue) throws(AppStoreError) {
        let fields = try JSONFields(json, path: "")
        guard let signed = try fields.strings("signedTransactions") else { throw .missing("signedTransactions") }
        signedTransactions = signed
        revision = try fields.string("revision")
        hasMore = try fields.bool("hasMore")
        bundleId = try fields.string("bundleId")
        appAppleId = try fields.int64("appAppleId")
        environment = try fields.environment()
        raw = json
    }

    /// Decodes a Get Transaction Info response (`TransactionInfoResponse`: one `signedTransactionInfo`) as a page
    /// of one transaction; it names no environment or app of its own.
    public init(transactionInfo json: JSONValue) throws(AppStoreError) {
        let fields = try JSONFields(json, path: "")
        guard let signed = try fields.string("signedTransactionInfo") else { throw .missing("signedTransactionInfo") }
        signedTransactions = [signed]
        raw = json
    }
}
