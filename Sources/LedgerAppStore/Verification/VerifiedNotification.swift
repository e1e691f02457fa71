import LedgerCrypto
import LedgerJSON

/// A notification whose signature, chain, app and environment were verified, with its nested
/// transaction and renewal info verified and decoded too.
public struct VerifiedNotification: Sendable {
    /// The JWS exactly as received (the evidence to keep), UTF-8, with its SHA-256.
    public let evidence: HashedBytes
    /// The JWS exactly as received, UTF-8.
    public var signedPayloadBytes: [UInt8] { evidence.bytes }
    /// The decoded `responseBodyV2DecodedPayload` (a JSON object).
    public let payload: JSONValue
    /// The decoded `data.signedTransactionInfo`, when present.
    public let transaction: JSONValue?
    /// The decoded `data.signedRenewalInfo`, when present.
    public let renewalInfo: JSONValue?

    /// The JWS exactly as received, as text (made on demand: ingest keeps the bytes).
    public var signedPayload: String { String(decoding: signedPayloadBytes, as: UTF8.self) }

    /// Creates a verified notification (the verifier is the only intended caller).
    public init(
        signedPayload: String, payload: JSONValue, transaction: JSONValue?, renewalInfo: JSONValue?
    ) {
        self.init(
            evidence: HashedBytes(CompactJWS.utf8Bytes(of: signedPayload)), payload: payload,
            transaction: transaction, renewalInfo: renewalInfo)
    }

    init(evidence: HashedBytes, payload: JSONValue, transaction: JSONValue?, renewalInfo: JSONValue?) {
        self.evidence = evidence
        self.payload = payload
        self.transaction = transaction
        self.renewalInfo = renewalInfo
    }

    /// The notification's UUID (the idempotency key).
    public var notificationUUID: String? { payload["notificationUUID"]?.string }
    /// The notification type, e.g. `DID_RENEW`.
    public var notificationType: String? { payload["notificationType"]?.string }
    /// The subtype, when there is one.
    public var subtype: String? { payload["subtype"]?.string }
    /// When the App Store signed the notification, in milliseconds.
    public var signedDate: Int64? { payload["signedDate"]?.int64 }

    /// The payload with `data.signedTransactionInfo` and `data.signedRenewalInfo` replaced by their
    /// decoded objects (what `ledger inspect` prints).
    public var expandedPayload: JSONValue {
        guard var root = payload.object, var data = root["data"]?.object else { return payload }
        if let transaction { data["signedTransactionInfo"] = transaction }
        if let renewalInfo { data["signedRenewalInfo"] = renewalInfo }
        root["data"] = .object(data)
        return .object(root)
    }
}
