import LedgerAppStore
import LedgerAppStoreTestKit
import LedgerCore
import LedgerCrypto
import LedgerJSON
import LedgerSystem

/// A run-time App Store PKI for tests, with a signer and verifiers configured to trust it.
///
/// Generating keys takes milliseconds, so the common PKIs are shared (`shared`, `sharedP256`);
/// tests that need a bent chain make their own with `TestPKI(options)`.
public struct TestPKI: Sendable {
    /// The bundle identifier tests use unless told otherwise.
    public static let bundleId = "com.visla.gps"
    /// The App Apple ID tests use unless told otherwise.
    public static let appAppleId: Int64 = 1_234_567_890

    /// An Apple-shaped PKI: P-384 root and intermediate, SHA-384 certificate signatures, P-256 leaf.
    public static let shared = try! TestPKI()
    /// An all-P-256, SHA-256 PKI, shaped like Apple's own test chain.
    public static let sharedP256 = try! TestPKI(.allP256)

    /// The certificates and keys.
    public let pki: ApplePKI
    /// A signer with the leaf key and the full `x5c`.
    public let signer: JWSSigner

    /// Generates a PKI shaped by `options`.
    public init(_ options: ApplePKI.Options = ApplePKI.Options()) throws(CryptoError) {
        pki = try ApplePKI(options)
        if options.leafCurve == .p256 {
            signer = try pki.signer()
        } else {
            // A leaf that cannot sign ES256 still needs a signer for the other parts of a test; use a
            // throwaway P-256 key under the same x5c (the verifier rejects the leaf before the signature).
            signer = try JWSSigner(privateKey: ECPrivateKey(generating: .p256), certificateChain: pki.x5c)
        }
    }

    /// The root certificate, DER (what `--trust-root` reads).
    public var rootDER: [UInt8] { pki.root.derRepresentation }

    /// A verifier that trusts this PKI's root (or `roots` when given).
    public func verifier(
        bundleId: String? = TestPKI.bundleId, appAppleId: Int64? = TestPKI.appAppleId,
        environment: LedgerEnvironment = .sandbox, roots: [[UInt8]]? = nil,
        now: @escaping @Sendable () -> Int64 = SystemClock.wallMilliseconds
    ) throws(VerificationError) -> SignedDataVerifier {
        let configuration = try VerifierConfiguration(
            rootCertificates: roots ?? [rootDER], bundleId: bundleId, appAppleId: appAppleId,
            environment: environment)
        return try SignedDataVerifier(configuration: configuration, now: now)
    }

    /// Signs a payload with this PKI's leaf.
    public func sign(_ payload: JSONValue) throws(CryptoError) -> String { try signer.sign(payload) }

    /// A signed notification whose `data` carries a signed transaction and renewal info, all
    /// consistent with the given app and environment.
    public func signedNotification(
        type: String = "DID_RENEW", subtype: String? = nil, uuid: String = Payloads.uuid(1),
        signedDate: Int64? = Payloads.signedDate, bundleId: String = TestPKI.bundleId,
        appAppleId: Int64? = TestPKI.appAppleId, environment: LedgerEnvironment = .sandbox,
        transaction: JSONValue? = nil, renewalInfo: JSONValue? = nil
    ) throws(CryptoError) -> String {
        let transaction =
            transaction
            ?? Payloads.transaction(bundleId: bundleId, environment: environment, signedDate: signedDate)
        let renewalInfo =
            renewalInfo ?? Payloads.renewalInfo(environment: environment, signedDate: signedDate)
        let data = Payloads.notificationData(
            bundleId: bundleId, appAppleId: appAppleId, environment: environment,
            signedTransactionInfo: try sign(transaction), signedRenewalInfo: try sign(renewalInfo))
        return try sign(
            Payloads.notification(
                type: type, subtype: subtype, uuid: uuid, signedDate: signedDate, data: data))
    }

    /// A webhook request body for a signed payload: `{"signedPayload":"…"}`.
    public static func body(_ signedPayload: String) -> [UInt8] {
        JSONValue.object(["signedPayload": .string(signedPayload)]).serializedBytes()
    }
}
