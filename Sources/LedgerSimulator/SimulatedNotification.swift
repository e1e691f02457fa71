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
    ///
    /// The signed transaction and renewal info are spliced into the serialized envelope as bytes: a JWS is
    /// plain base64url, so it needs no escaping, and copying it whole is several times faster than writing
    /// its characters one by one.
    public func body(signedWith signer: some PayloadSigner) throws(SimulationError) -> [UInt8] {
        let transactionJWS = try transaction.map { (object) throws(SimulationError) in
            try signer.sign(.object(object))
        }
        let renewalJWS = try renewal.map { (object) throws(SimulationError) in
            try signer.sign(.object(object))
        }
        var payload = assembled(transaction: transactionJWS.map { _ in "" }, renewal: renewalJWS.map { _ in "" })
            .serializedBytes()
        if let transactionJWS { Self.splice(transactionJWS, into: &payload, key: "signedTransactionInfo") }
        if let renewalJWS { Self.splice(renewalJWS, into: &payload, key: "signedRenewalInfo") }
        let jws = try signer.sign(payloadBytes: payload)
        var body: [UInt8] = []
        body.reserveCapacity(jws.utf8.count + 20)
        body += #"{"signedPayload":""#.utf8
        body += jws.utf8
        body += #""}"#.utf8
        return body
    }

    /// Writes `value` into the empty string of `"key":""` in serialized JSON.
    private static func splice(_ value: String, into json: inout [UInt8], key: String) {
        let marker = Array("\"\(key)\":\"\"".utf8)
        guard marker.count <= json.count else { return }
        for start in 0...(json.count - marker.count) where json[start] == marker[0] {
            guard json[start..<(start + marker.count)].elementsEqual(marker) else { continue }
            json.replaceSubrange((start + marker.count - 1)..<(start + marker.count - 1), with: value.utf8)
            return
        }
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
