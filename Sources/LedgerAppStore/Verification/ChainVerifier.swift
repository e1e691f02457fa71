import LedgerCore
import LedgerCrypto
import Synchronization

/// Validates the certificate chain of an App Store JWS — leaf `x5c[0]` → intermediate `x5c[1]` →
/// a configured trust root — as Apple's libraries do, and caches chains it has validated.
///
/// Rules (Apple's reference procedure, swift-certificates' RFC 5280 policy plus Apple's OID
/// policy): ECDSA (SHA-256/384) signatures on the leaf and the intermediate; issuer names equal to
/// the issuer's subject (compared as DER); the intermediate a CA (basicConstraints cA) carrying
/// 1.2.840.113635.100.6.2.1; the leaf carrying 1.2.840.113635.100.6.11.1 (exact OIDs); on the leaf,
/// the intermediate and the root, no malformed extension and no critical extension other than
/// basicConstraints, keyUsage and nameConstraints (`handledCriticalExtensionOIDs`); the
/// nameConstraints of the root and of the intermediate satisfied by every certificate below them; a
/// root's pathLenConstraint, when present, allowing the intermediate; and
/// `notBefore ≤ t ≤ notAfter` for leaf, intermediate and root. `x5c[2]` is never read: the root
/// comes from the configuration. AKI/SKI and keyUsage are not required (Apple's own test chains
/// lack them).
///
/// The cache, keyed by the leaf and intermediate DER, keeps the leaf key and the validity windows,
/// so a known chain costs a dictionary lookup and a time comparison. Everything cached is
/// independent of the time, so caching never changes a result.
public final class ChainVerifier: Sendable {
    /// The extension Apple puts on receipt-signing leaf certificates.
    public static let receiptSigningOID = "1.2.840.113635.100.6.11.1"
    /// The extension Apple puts on its WWDR intermediate certificates.
    public static let wwdrIntermediateOID = "1.2.840.113635.100.6.2.1"

    /// The configured trust roots.
    public let roots: [X509Certificate]
    private let rootKeys: [ECPublicKey?]
    private let cache: Mutex<ChainCache>

    /// Parses the trust roots. An empty list or an unparsable root is `INVALID_CERTIFICATE`: the
    /// ledger refuses to verify without a trust root.
    public init(rootCertificates: [[UInt8]], cacheCapacity: Int = 64) throws(VerificationError) {
        guard !rootCertificates.isEmpty else {
            throw VerificationError(
                .invalidCertificate,
                "no trust root is configured; download Apple Root CA - G3 from Apple's PKI page and pass it"
                    + " with --trust-root FILE")
        }
        var roots: [X509Certificate] = []
        for (index, der) in rootCertificates.enumerated() {
            do {
                roots.append(try X509Certificate(derRepresentation: der))
            } catch {
                throw VerificationError(
                    .invalidCertificate,
                    "trust root \(index + 1) is not a DER X.509 certificate: \(error.message)", cause: error)
            }
        }
        self.roots = roots
        self.rootKeys = roots.map { try? $0.publicKey }
        self.cache = Mutex(ChainCache(capacity: max(1, cacheCapacity)))
    }

    /// Validates the chain `leaf` → `intermediate` → a trust root at `time` (milliseconds since the
    /// epoch) and returns the leaf's public key.
    public func validatedLeafKey(leaf: [UInt8], intermediate: [UInt8], at time: Int64)
        throws(VerificationError) -> ECPublicKey
    {
        try validatedLeafKey(
            leaf: leaf, intermediate: intermediate, key: ChainCache.key(leaf: leaf, intermediate: intermediate),
            at: time)
    }

    /// `validatedLeafKey(leaf:intermediate:at:)` with the chain's cache key already made
    /// (`ChainCache.key(leaf:intermediate:)`, which a cached `SigningHeader` holds).
    func validatedLeafKey(leaf: [UInt8], intermediate: [UInt8], key: ByteKey, at time: Int64)
        throws(VerificationError) -> ECPublicKey
    {
        let entry: ChainCache.Entry
        if let cached = cache.withLock({ $0.lookup(key) }) {
            entry = cached
        } else {
            entry = try validate(leaf: leaf, intermediate: intermediate)
            cache.withLock { $0.insert(entry, for: key) }
        }
        guard entry.windows.contains(where: { $0.contains(time) }) else {
            let windows = entry.windows.map {
                "\(Instant(milliseconds: $0.lowerBound))…\(Instant(milliseconds: $0.upperBound))"
            }
            throw VerificationError(
                .verificationFailure,
                "the signing date \(Instant(milliseconds: time)) is outside the certificates' common validity "
                    + "(\(windows.joined(separator: ", "))); the data was signed with an expired or not yet valid chain"
            )
        }
        return entry.leafKey
    }

    /// How the cache has been used so far.
    public var cacheStatistics: ChainCache.Statistics { cache.withLock { $0.statistics } }

    /// The full validation of a chain not in the cache; everything but the time.
    private func validate(leaf leafDER: [UInt8], intermediate intermediateDER: [UInt8])
        throws(VerificationError) -> ChainCache.Entry
    {
        // Apple's Swift library reports a certificate that is base64 but not DER as INVALID_JWT_FORMAT.
        let leaf = try Self.parse(leafDER, name: "x5c[0] (leaf)")
        let intermediate = try Self.parse(intermediateDER, name: "x5c[1] (intermediate)")
        try Self.checkExtensions(leaf: leaf, intermediate: intermediate)
        guard leaf.issuerDER == intermediate.subjectDER else {
            throw Self.failure("the leaf certificate was not issued by the intermediate x5c[1]")
        }
        guard intermediate.nameConstraintsPermit(leaf) else {
            throw Self.failure(
                "the leaf certificate's names (\(leaf.subjectSummary)) violate the intermediate's nameConstraints")
        }
        guard let intermediateKey = try? intermediate.publicKey, leaf.isSigned(by: intermediateKey)
        else {
            throw Self.failure(
                "the leaf certificate's signature does not verify with the intermediate's key")
        }
        guard let leafKey = try? leaf.publicKey else {
            throw Self.failure(
                "the leaf certificate's key is not an elliptic-curve key on P-256 or P-384")
        }
        var windows: [ClosedRange<Int64>] = []
        var rootProblem: String? = nil
        for (root, rootKey) in zip(roots, rootKeys) {
            guard let rootKey, root.subjectDER == intermediate.issuerDER,
                (root.pathLengthConstraint ?? 1) >= 1, intermediate.isSigned(by: rootKey)
            else { continue }
            if let problem = Self.problem(root: root, intermediate: intermediate, leaf: leaf) {
                rootProblem = problem
                continue
            }
            let start = max(leaf.notBefore, intermediate.notBefore, root.notBefore)
            let end = min(leaf.notAfter, intermediate.notAfter, root.notAfter)
            if start <= end { windows.append(start...end) }
        }
        guard !windows.isEmpty else {
            if let rootProblem { throw Self.failure(rootProblem) }
            throw Self.failure(
                "the chain does not lead to a configured trust root (x5c[2] is never trusted; the intermediate"
                    + " is issued by \(intermediate.issuerSummary)); check --trust-root")
        }
        return ChainCache.Entry(leafKey: leafKey, windows: windows)
    }

    private static func parse(_ der: [UInt8], name: String) throws(VerificationError)
        -> X509Certificate
    {
        do {
            return try X509Certificate(derRepresentation: der)
        } catch {
            throw VerificationError(
                .invalidJWTFormat, "\(name) is not a DER X.509 certificate: \(error.message)", cause: error)
        }
    }

    static func failure(_ message: String) -> VerificationError {
        VerificationError(.verificationFailure, message)
    }
}
