import LedgerCore

/// What a `SignedDataVerifier` trusts and expects: trust roots, the app's identity and the
/// environment, as in Apple's libraries.
public struct VerifierConfiguration: Sendable {
    /// The trust roots, DER-encoded (operators download Apple Root CA - G3 from Apple's PKI page).
    public var rootCertificates: [[UInt8]]
    /// The app's bundle identifier; nil skips the bundle check.
    public var bundleId: String?
    /// The app's App Apple ID; required in production.
    public var appAppleId: Int64?
    /// The environment the data must come from. `Xcode` and `LocalTesting` skip the signature, as
    /// Apple's libraries do (the environment is still checked).
    public var environment: LedgerEnvironment

    /// Creates a configuration; production without `appAppleId` is refused with
    /// `INVALID_APP_APPLE_ID`, as in Apple's libraries.
    public init(
        rootCertificates: [[UInt8]], bundleId: String?, appAppleId: Int64?,
        environment: LedgerEnvironment
    ) throws(VerificationError) {
        guard environment != .production || appAppleId != nil else {
            throw VerificationError(
                .invalidAppAppleId,
                "verifying production data needs the app's App Apple ID; pass --app-apple-id N")
        }
        self.rootCertificates = rootCertificates
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environment = environment
    }

    /// Whether signatures are skipped (Xcode and LocalTesting data is not signed by the App Store).
    public var skipsSignatureVerification: Bool {
        environment == .xcode || environment == .localTesting
    }
}
