import LedgerCore
import LedgerJSON

/// One App Store Server Notification V2 the simulator produced: its decoded payload, with the transaction
/// and renewal info still unsigned so they can be inspected, compared and signed.
public struct SimulatedNotification: Sendable, Hashable {
    /// `notificationUUID`.
    public var uuid: String
    /// `notificationType`, e.g. `DID_RENEW`.
    public var type: String
    /// `subtype`, when any.
    public var subtype: String?
    /// When the App Store signed it.
    public var signedDate: Instant
    /// The user the notification is about (also for orphans, whose payloads do not say it); nil for `TEST`.
    public var userId: Int64?
    /// The subscription it is about; nil for `TEST`.
    public var originalTransactionId: String?
    /// `data.status`, when present.
    public var status: Int32?
    /// The `responseBodyV2DecodedPayload` with `data.signedTransactionInfo` and `data.signedRenewalInfo`
    /// left as `null` placeholders.
    public var envelope: JSONObject
    /// The `JWSTransactionDecodedPayload` to sign into `data.signedTransactionInfo`.
    public var transaction: JSONObject?
    /// The `JWSRenewalInfoDecodedPayload` to sign into `data.signedRenewalInfo`.
    public var renewal: JSONObject?

    /// The payload as `ledger inspect` prints it: the nested signed fields decoded in place.
    public var decodedPayload: JSONValue {
        assembled(transaction: transaction.map(JSONValue.object), renewal: renewal.map(JSONValue.object))
    }

    /// The request body Apple POSTs, `{"signedPayload":"…"}`, as compact UTF-8 JSON.
    public func body(signedWith signer: some PayloadSigner) throws(SimulationError) -> [UInt8] {
        let transactionJWS = try transaction.map { (object) throws(SimulationError) in
            JSONValue.string(try signer.sign(.object(object)))
        }
        let renewalJWS = try renewal.map { (object) throws(SimulationError) in
            JSONValue.string(try signer.sign(.object(object)))
        }
        let payload = assembled(transaction: transactionJWS, renewal: renewalJWS)
        let body: JSONValue = .object(["signedPayload": .string(try signer.sign(payload))])
        return body.serializedBytes()
    }

    private func assembled(transaction: JSONValue?, renewal: JSONValue?) -> JSONValue {
        var outer = envelope
        guard var data = outer["data"]?.object else { return .object(outer) }
        if data["signedTransactionInfo"] != nil { data["signedTransactionInfo"] = transaction }
        if data["signedRenewalInfo"] != nil { data["signedRenewalInfo"] = renewal }
        outer["data"] = .object(data)
        return .object(outer)
    }
}
