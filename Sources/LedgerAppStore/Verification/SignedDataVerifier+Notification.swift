import LedgerCrypto
import LedgerJSON

extension SignedDataVerifier {
    /// Verifies and decodes an App Store Server Notification V2 `signedPayload`, and the
    /// `signedTransactionInfo` and `signedRenewalInfo` nested in its `data`.
    ///
    /// The app and environment come from `data`, `summary`, `externalPurchaseToken` (environment
    /// Sandbox when `externalPurchaseId` starts with "SANDBOX", else Production) or `appData`. A bundle
    /// mismatch, or in production an App Apple ID mismatch, is `INVALID_APP_IDENTIFIER`; then an
    /// environment mismatch is `INVALID_ENVIRONMENT`.
    public func verifyNotification(_ signedPayload: String) throws(VerificationError)
        -> VerifiedNotification
    {
        try verifyNotification(envelope: CompactJWS(signedPayload))
    }

    /// Extracts `signedPayload` from a request body and verifies it (see `verifyNotification(_:)`).
    public func verifyNotification(body: [UInt8]) throws(VerificationError) -> VerifiedNotification {
        try verifyNotification(envelope: CompactJWS(bytes: Self.signedPayloadBytes(fromBody: body)))
    }

    /// Verifies a notification and every JWS nested in it, each whole (chain, OIDs, signature, app,
    /// environment): a nested one that fails fails the notification, named by its field.
    private func verifyNotification(envelope: CompactJWS) throws(VerificationError) -> VerifiedNotification {
        // The envelope's header, for the nested JWSs that carry the same bytes (every one Apple signs does).
        var known: KnownHeader? = nil
        let (payload, evidence) = try verify(envelope, as: Self.model(NotificationPayload.self), known: &known)
        let identity = try NotificationIdentity(payload)
        if let expected = configuration.bundleId, identity.bundleId != expected {
            throw VerificationError(
                .invalidAppIdentifier,
                "the notification is for bundle \(SignedFields.quoted(identity.bundleId)), not the configured"
                    + " \"\(expected)\"; check --bundle-id")
        }
        if configuration.environment == .production, identity.appAppleId != configuration.appAppleId {
            throw VerificationError(
                .invalidAppIdentifier,
                "the notification is for App Apple ID \(identity.appAppleId.map(String.init) ?? "(none)"), not the"
                    + " configured \(configuration.appAppleId.map(String.init) ?? "(none)"); check --app-apple-id"
            )
        }
        try checkEnvironment(identity.environment, of: "notification")

        var transaction: JSONValue? = nil
        var renewalInfo: JSONValue? = nil
        if let data = try SignedFields.object(payload, "data") {
            if let signed = try SignedFields.string(data, "signedTransactionInfo") {
                do {
                    transaction = try verifyTransaction(signed, as: nil, known: &known)
                } catch {
                    throw error.within("data.signedTransactionInfo")
                }
            }
            if let signed = try SignedFields.string(data, "signedRenewalInfo") {
                do {
                    renewalInfo = try verifyRenewalInfo(signed, as: nil, known: &known)
                } catch {
                    throw error.within("data.signedRenewalInfo")
                }
            }
        }
        return VerifiedNotification(
            evidence: evidence ?? HashedBytes(envelope.bytes), payload: .object(payload), transaction: transaction,
            renewalInfo: renewalInfo)
    }
}

/// The app and environment a notification names, from whichever of its parts is present.
struct NotificationIdentity {
    var bundleId: String?
    var appAppleId: Int64?
    var environment: String?

    init(_ payload: JSONObject) throws(VerificationError) {
        if let data = try SignedFields.object(payload, "data") {
            try self.init(part: data)
        } else if let summary = try SignedFields.object(payload, "summary") {
            try self.init(part: summary)
        } else if let token = try SignedFields.object(payload, "externalPurchaseToken") {
            let purchaseId = try SignedFields.string(token, "externalPurchaseId")
            self.init(
                bundleId: try SignedFields.string(token, "bundleId"),
                appAppleId: try SignedFields.int64(token, "appAppleId"),
                environment: purchaseId?.hasPrefix("SANDBOX") == true ? "Sandbox" : "Production")
        } else if let appData = try SignedFields.object(payload, "appData") {
            try self.init(part: appData)
        } else {
            self.init(bundleId: nil, appAppleId: nil, environment: nil)
        }
    }

    private init(part: JSONObject) throws(VerificationError) {
        self.init(
            bundleId: try SignedFields.string(part, "bundleId"),
            appAppleId: try SignedFields.int64(part, "appAppleId"),
            environment: try SignedFields.string(part, "environment"))
    }

    private init(bundleId: String?, appAppleId: Int64?, environment: String?) {
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environment = environment
    }
}
