/// Why signed App Store data was rejected, named as Apple's Swift App Store Server Library names
/// it, so operators can search for the status.
///
/// A raw-string struct, not an enum: a status added later never breaks a caller's `switch`.
public struct VerificationStatus: Hashable, Sendable, CustomStringConvertible {
    /// Apple's name, e.g. `INVALID_JWT_FORMAT`.
    public let rawValue: String

    /// Wraps a status name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Not a compact JWS, undecodable header or payload, a header without `x5c` or with an `alg`
    /// other than ES256, an undecodable certificate, or — as in Apple's Swift library — a signature
    /// that does not verify.
    public static let invalidJWTFormat = VerificationStatus(rawValue: "INVALID_JWT_FORMAT")
    /// A certificate in `x5c` is not base64, or no usable trust root is configured.
    public static let invalidCertificate = VerificationStatus(rawValue: "INVALID_CERTIFICATE")
    /// `x5c` does not hold exactly three certificates.
    public static let invalidChainLength = VerificationStatus(rawValue: "INVALID_CHAIN_LENGTH")
    /// The chain does not lead to a configured root, lacks Apple's OIDs, is not valid at the
    /// signing date, or the leaf key is not P-256.
    public static let verificationFailure = VerificationStatus(rawValue: "VERIFICATION_FAILURE")
    /// The bundle identifier (or, in production, the App Apple ID) differs from the configured one.
    public static let invalidAppIdentifier = VerificationStatus(rawValue: "INVALID_APP_IDENTIFIER")
    /// The data's environment differs from the configured one.
    public static let invalidEnvironment = VerificationStatus(rawValue: "INVALID_ENVIRONMENT")
    /// A failure that may pass on retry (Apple uses it for OCSP network failures; the ledger has no
    /// online checks, so it never reports it today).
    public static let retryableVerificationFailure = VerificationStatus(
        rawValue: "RETRYABLE_VERIFICATION_FAILURE")
    /// The configuration is production without an App Apple ID (Apple's `INVALID_APP_APPLE_ID`).
    public static let invalidAppAppleId = VerificationStatus(rawValue: "INVALID_APP_APPLE_ID")

    public var description: String { rawValue }
}
