import LedgerCrypto

/// A certificate hierarchy shaped like Apple's App Store signing PKI, generated at run time: a root,
/// an intermediate carrying 1.2.840.113635.100.6.2.1 and a leaf carrying 1.2.840.113635.100.6.11.1.
///
/// The simulator signs notifications with it and writes `root` as `trust-root.der`; tests bend the
/// options (curves, hashes, missing or wrong OIDs, validity) to build every kind of bad chain.
public struct ApplePKI: Sendable {
    /// The root's private key.
    public let rootKey: ECPrivateKey
    /// The self-signed root certificate (the trust anchor to configure).
    public let root: X509Certificate
    /// The intermediate's private key.
    public let intermediateKey: ECPrivateKey
    /// The intermediate certificate, issued by the root.
    public let intermediate: X509Certificate
    /// The leaf's private key (signs the JWS).
    public let leafKey: ECPrivateKey
    /// The leaf certificate, issued by the intermediate.
    public let leaf: X509Certificate

    /// Generates fresh keys and certificates as `options` describe.
    public init(_ options: Options = Options()) throws(CryptoError) {
        rootKey = try ECPrivateKey(generating: options.rootCurve)
        var rootBuilder = CertificateBuilder(
            subject: options.rootName, publicKey: rootKey.publicKey,
            notBefore: options.rootValidity.lowerBound, notAfter: options.rootValidity.upperBound)
        rootBuilder.isCA = options.rootIsCA
        rootBuilder.isVersion1 = options.rootIsVersion1
        rootBuilder.keyUsage = options.rootKeyUsage
        rootBuilder.pathLengthConstraint = options.rootPathLength
        rootBuilder.extensions = options.rootExtensions
        root = try rootBuilder.selfSigned(with: rootKey, digest: options.rootDigest)

        intermediateKey = try ECPrivateKey(generating: options.intermediateCurve)
        var intermediateBuilder = CertificateBuilder(
            subject: options.intermediateName, publicKey: intermediateKey.publicKey,
            notBefore: options.intermediateValidity.lowerBound,
            notAfter: options.intermediateValidity.upperBound)
        intermediateBuilder.isCA = options.intermediateIsCA
        intermediateBuilder.pathLengthConstraint = options.intermediateIsCA ? 0 : nil
        intermediateBuilder.keyUsage = options.intermediateIsCA ? options.intermediateKeyUsage : [.digitalSignature]
        intermediateBuilder.markerExtensionOIDs = options.intermediateExtensionOIDs
        intermediateBuilder.extensions = options.intermediateExtensions
        intermediate = try intermediateBuilder.signed(
            by: root, key: rootKey, digest: options.intermediateDigest)

        leafKey = try ECPrivateKey(generating: options.leafCurve)
        var leafBuilder = CertificateBuilder(
            subject: options.leafName, publicKey: leafKey.publicKey,
            notBefore: options.leafValidity.lowerBound, notAfter: options.leafValidity.upperBound)
        leafBuilder.keyUsage = [.digitalSignature]
        leafBuilder.markerExtensionOIDs = options.leafExtensionOIDs
        leafBuilder.extensions = options.leafExtensions
        leaf = try leafBuilder.signed(
            by: intermediate, key: intermediateKey, digest: options.leafDigest)
    }

    /// The `x5c` chain as the App Store sends it: leaf, intermediate, root (DER).
    public var x5c: [[UInt8]] {
        [leaf.derRepresentation, intermediate.derRepresentation, root.derRepresentation]
    }

    /// A signer with the leaf key and this chain.
    public func signer() throws(CryptoError) -> JWSSigner {
        try JWSSigner(privateKey: leafKey, certificateChain: x5c)
    }
}

extension ApplePKI {
    /// How to shape the generated PKI. The defaults mirror Apple's production chain: P-384 root and
    /// intermediate, ecdsa-with-SHA384 certificate signatures, a P-256 leaf, Apple's OIDs, and validity
    /// windows wide enough for any simulated history (2015 – 2045).
    public struct Options: Sendable {
        /// The root key's curve.
        public var rootCurve: ECCurve = .p384
        /// The intermediate key's curve.
        public var intermediateCurve: ECCurve = .p384
        /// The leaf key's curve (ES256 needs P-256).
        public var leafCurve: ECCurve = .p256
        /// The hash of the root's self-signature.
        public var rootDigest: DigestAlgorithm = .sha384
        /// The hash of the root's signature on the intermediate.
        public var intermediateDigest: DigestAlgorithm = .sha384
        /// The hash of the intermediate's signature on the leaf.
        public var leafDigest: DigestAlgorithm = .sha384
        /// Marker extensions on the intermediate (Apple's WWDR OID by default).
        public var intermediateExtensionOIDs = ["1.2.840.113635.100.6.2.1"]
        /// Marker extensions on the leaf (Apple's receipt-signing OID by default).
        public var leafExtensionOIDs = ["1.2.840.113635.100.6.11.1"]
        /// Further extensions on the root (OpenSSL configuration syntax; none by default).
        public var rootExtensions: [CertificateBuilder.Extension] = []
        /// Further extensions on the intermediate (none by default).
        public var intermediateExtensions: [CertificateBuilder.Extension] = []
        /// Further extensions on the leaf (none by default).
        public var leafExtensions: [CertificateBuilder.Extension] = []
        /// Whether the intermediate is a CA (basicConstraints cA).
        public var intermediateIsCA = true
        /// The root's keyUsage (nil: none).
        public var rootKeyUsage: CertificateBuilder.KeyUsage? = [.keyCertSign, .cRLSign]
        /// The intermediate's keyUsage when it is a CA (nil: none).
        public var intermediateKeyUsage: CertificateBuilder.KeyUsage? = [.keyCertSign, .cRLSign]
        /// Whether the root is a CA (basicConstraints cA).
        public var rootIsCA = true
        /// Whether the root is a version 1 certificate (no extensions at all, so no basicConstraints).
        public var rootIsVersion1 = false
        /// The root's pathLenConstraint, if any.
        public var rootPathLength: Int? = nil
        /// The root's validity, in milliseconds since the epoch.
        public var rootValidity: ClosedRange<Int64> = 1_420_070_400_000...2_366_841_600_000
        /// The intermediate's validity.
        public var intermediateValidity: ClosedRange<Int64> = 1_420_070_400_000...2_366_841_600_000
        /// The leaf's validity.
        public var leafValidity: ClosedRange<Int64> = 1_420_070_400_000...2_366_841_600_000
        /// The root's name.
        public var rootName = DistinguishedName(
            commonName: "Ledger Simulated Root CA",
            organizationalUnit: "Simulated Certification Authority",
            organization: "Visla Ledger", country: "US")
        /// The intermediate's name.
        public var intermediateName = DistinguishedName(
            commonName: "Ledger Simulated WWDR Intermediate",
            organizationalUnit: "Simulated Certification Authority",
            organization: "Visla Ledger", country: "US")
        /// The leaf's name.
        public var leafName = DistinguishedName(
            commonName: "Ledger Simulated App Store Signer", organizationalUnit: "Simulated App Store",
            organization: "Visla Ledger", country: "US")

        /// The defaults (Apple-like curves and hashes).
        public init() {}

        /// Every key P-256 and every certificate signature SHA-256, like Apple's own test chain.
        public static var allP256: Options {
            var options = Options()
            options.rootCurve = .p256
            options.intermediateCurve = .p256
            options.rootDigest = .sha256
            options.intermediateDigest = .sha256
            options.leafDigest = .sha256
            return options
        }
    }
}
