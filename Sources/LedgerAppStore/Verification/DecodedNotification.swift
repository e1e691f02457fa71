import LedgerJSON

/// A verified notification decoded into its typed models: the payload, and the nested transaction and
/// renewal info.
///
/// Apple's libraries decode signed data with Foundation's JSONDecoder into typed models, so a field of the
/// wrong type (a numeric `notificationUUID`, a string `data.status`, a `quantity` of 1.5, a `data.status`
/// beyond 32 bits) fails the whole payload as `INVALID_JWT_FORMAT`. This is the one place that decoding is
/// done for a notification: `ingest`, the webhook, `inspect` and `audit` all go through it and reach the
/// same verdict on every field's type. Only what may be absent differs: `inspect` allows every field Apple's
/// models leave optional, while recording a payload needs its ids and dates (`requiringLedgerFields`).
public struct DecodedNotification: Sendable {
    /// The decoded `responseBodyV2DecodedPayload`.
    public let notification: NotificationPayload
    /// The decoded `data.signedTransactionInfo`, when present.
    public let transaction: TransactionPayload?
    /// The decoded `data.signedRenewalInfo`, when present.
    public let renewal: RenewalInfoPayload?

    /// Decodes `verified`; a payload that does not decode is `INVALID_JWT_FORMAT`, its message naming the
    /// field. With `requiringLedgerFields` false it is judged as Apple's libraries judge it (`ledger inspect`):
    /// only a field of the wrong type fails, not one the ledger needs to record it but Apple leaves optional.
    public init(_ verified: VerifiedNotification, requiringLedgerFields: Bool = true) throws(VerificationError) {
        notification = try NotificationPayload(verified: verified.payload, requiringLedgerFields: requiringLedgerFields)
        transaction = try verified.transaction.map { json throws(VerificationError) in
            try TransactionPayload(verified: json, requiringLedgerFields: requiringLedgerFields)
        }
        renewal = try verified.renewalInfo.map { json throws(VerificationError) in
            try RenewalInfoPayload(verified: json, requiringLedgerFields: requiringLedgerFields)
        }
    }
}

extension VerificationError {
    /// A payload that verified but does not decode into its model: `INVALID_JWT_FORMAT`, as Apple's
    /// libraries report a failed decode.
    public init(decoding error: AppStoreError, file: String = #fileID, line: Int = #line) {
        self.init(.invalidJWTFormat, error.description, cause: error, file: file, line: line)
    }
}

/// An App Store payload model (the notification, a transaction, renewal info) decoded from verified JSON.
public protocol VerifiedPayload {
    /// Decodes the model; with `requiringLedgerFields` false, as Apple's libraries do (see `JSONFields`).
    init(json: JSONValue, requiringLedgerFields: Bool) throws(AppStoreError)
}

extension VerifiedPayload {
    /// Decodes verified JSON (`ledger inspect --as`, a notification's nested payloads); a failure is
    /// `INVALID_JWT_FORMAT`, as Apple's libraries report a failed decode.
    public init(verified json: JSONValue, requiringLedgerFields: Bool = true) throws(VerificationError) {
        do {
            try self.init(json: json, requiringLedgerFields: requiringLedgerFields)
        } catch {
            throw VerificationError(decoding: error)
        }
    }
}

extension NotificationPayload: VerifiedPayload {}
extension TransactionPayload: VerifiedPayload {}
extension RenewalInfoPayload: VerifiedPayload {}
