import LedgerCore

/// What a reconciled document must agree with before any of it is imported: the ledger's environment, bundle id
/// and (production) App Apple ID, as the verifier is configured. Each refusal is a ``VerificationError`` with
/// Apple's status name: INVALID_ENVIRONMENT or INVALID_APP_IDENTIFIER.
public struct ReconcileGate: Sendable, Hashable {
    /// The ledger's environment.
    public var environment: LedgerEnvironment
    /// The ledger's bundle id (nil: not known, not checked).
    public var bundleId: String?
    /// The ledger's App Apple ID (checked in production).
    public var appAppleId: Int64?

    /// A gate for this environment and app.
    public init(environment: LedgerEnvironment, bundleId: String?, appAppleId: Int64?) {
        self.environment = environment
        self.bundleId = bundleId
        self.appAppleId = appAppleId
    }

    /// The gate of a verifier's configuration.
    public init(_ configuration: VerifierConfiguration) {
        self.init(
            environment: configuration.environment, bundleId: configuration.bundleId,
            appAppleId: configuration.appAppleId)
    }

    /// Checks an App Store Server API response's envelope (`environment`, `bundleId`, `appAppleId`); a field the
    /// response leaves out is not checked here (each signed item still is, by the verifier).
    public func checkEnvelope(environment named: LedgerEnvironment?, bundleId bundle: String?, appAppleId id: Int64?)
        throws(VerificationError)
    {
        if let named, named != environment {
            throw VerificationError(
                .invalidEnvironment,
                "the response is from the \(named.rawValue) environment; this ledger holds \(environment.rawValue)")
        }
        if let bundle, let bundleId, bundle != bundleId {
            throw VerificationError(
                .invalidAppIdentifier, "the response is for bundle id \(bundle), not this ledger's \(bundleId)")
        }
        if environment == .production, let id, let appAppleId, id != appAppleId {
            throw VerificationError(
                .invalidAppIdentifier, "the response is for App Apple ID \(id), not this ledger's \(appAppleId)")
        }
    }

    /// Checks a legacy `verifyReceipt` response, which Apple signs none of, so these fields are all that tie it to
    /// the ledger: `environment` and `receipt.receipt_type` must fit the ledger's environment, `receipt.bundle_id`
    /// must be its bundle id (a receipt naming none is refused), and in production `receipt.adam_id` must be its
    /// App Apple ID (in sandbox it is 0 or absent).
    public func check(_ receipt: LegacyReceiptResponse) throws(VerificationError) {
        if let named = receipt.environment, named != environment {
            throw VerificationError(
                .invalidEnvironment,
                "the receipt is from \(named.rawValue); this ledger holds \(environment.rawValue)")
        }
        if let type = receipt.receiptType, Self.environment(ofReceiptType: type) != environment {
            throw VerificationError(
                .invalidEnvironment,
                "receipt.receipt_type is \(type), which is not a \(environment.rawValue) receipt "
                    + "(Production fits production; ProductionSandbox and Sandbox fit sandbox)")
        }
        if let bundleId, receipt.bundleId != bundleId {
            let named = receipt.bundleId.map { "bundle id \($0)" } ?? "no bundle id"
            throw VerificationError(
                .invalidAppIdentifier, "the receipt names \(named), not this ledger's \(bundleId)")
        }
        if environment == .production {
            if let appAppleId, receipt.adamId != appAppleId {
                let named = receipt.adamId.map { "adam_id \($0)" } ?? "no adam_id"
                throw VerificationError(
                    .invalidAppIdentifier, "the receipt names \(named), not this ledger's App Apple ID \(appAppleId)")
            }
        } else if let id = receipt.adamId, id != 0, id != appAppleId {
            throw VerificationError(
                .invalidAppIdentifier,
                "the receipt names adam_id \(id); a sandbox receipt carries 0 or none"
                    + (appAppleId.map { " (or this ledger's App Apple ID \($0))" } ?? ""))
        }
    }

    /// The environment a legacy `receipt_type` names: `Production` (and `ProductionVPP`) production,
    /// `ProductionSandbox`, `ProductionVPPSandbox` and `Sandbox` sandbox; nil for any other value.
    public static func environment(ofReceiptType type: String) -> LedgerEnvironment? {
        if type.hasSuffix("Sandbox") { return .sandbox }
        if type == "Production" || type == "ProductionVPP" { return .production }
        return nil
    }
}
