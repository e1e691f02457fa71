import LedgerCrypto

/// An ``ApplePKI`` derived entirely from a seed, whose signatures are deterministic (RFC 6979): the same
/// seed gives the same keys, certificates and JWS, byte for byte.
///
/// The simulator signs with it so that `ledger simulate` with one seed always writes the same files,
/// `trust-root.der` included.
public struct DeterministicApplePKI: Sendable {
    /// The PKI: keys, root, intermediate and leaf.
    public let pki: ApplePKI
    /// The leaf's key with deterministic signing.
    public let leafSigningKey: DeterministicSigningKey

    /// Derives keys from `seed`, gives each certificate a serial from the seed, and signs every
    /// certificate with RFC 6979 nonces.
    public init(seed: [UInt8], options: ApplePKI.Options = ApplePKI.Options()) throws(CryptoError) {
        let rootKey = try DeterministicSigningKey(curve: options.rootCurve, seed: seed + Array("root".utf8))
        let intermediateKey = try DeterministicSigningKey(
            curve: options.intermediateCurve, seed: seed + Array("intermediate".utf8))
        let leafKey = try DeterministicSigningKey(curve: options.leafCurve, seed: seed + Array("leaf".utf8))
        func serial(_ label: String) -> UInt64 {
            let digest = DigestAlgorithm.sha256.hash(seed + Array("serial \(label)".utf8))
            let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return max(1, value & 0x7FFF_FFFF_FFFF_FFFF)
        }

        var rootBuilder = CertificateBuilder(
            subject: options.rootName, publicKey: rootKey.privateKey.publicKey,
            notBefore: options.rootValidity.lowerBound, notAfter: options.rootValidity.upperBound)
        rootBuilder.serialNumber = serial("root")
        rootBuilder.isCA = true
        rootBuilder.keyUsage = [.keyCertSign, .cRLSign]
        rootBuilder.pathLengthConstraint = options.rootPathLength
        let root = try Self.resign(
            rootBuilder.selfSigned(with: rootKey.privateKey, digest: options.rootDigest), with: rootKey,
            digest: options.rootDigest)

        var intermediateBuilder = CertificateBuilder(
            subject: options.intermediateName, publicKey: intermediateKey.privateKey.publicKey,
            notBefore: options.intermediateValidity.lowerBound, notAfter: options.intermediateValidity.upperBound)
        intermediateBuilder.serialNumber = serial("intermediate")
        intermediateBuilder.isCA = options.intermediateIsCA
        intermediateBuilder.pathLengthConstraint = options.intermediateIsCA ? 0 : nil
        intermediateBuilder.keyUsage = options.intermediateIsCA ? [.keyCertSign, .cRLSign] : [.digitalSignature]
        intermediateBuilder.markerExtensionOIDs = options.intermediateExtensionOIDs
        let intermediate = try Self.resign(
            intermediateBuilder.signed(by: root, key: rootKey.privateKey, digest: options.intermediateDigest),
            with: rootKey, digest: options.intermediateDigest)

        var leafBuilder = CertificateBuilder(
            subject: options.leafName, publicKey: leafKey.privateKey.publicKey,
            notBefore: options.leafValidity.lowerBound, notAfter: options.leafValidity.upperBound)
        leafBuilder.serialNumber = serial("leaf")
        leafBuilder.keyUsage = [.digitalSignature]
        leafBuilder.markerExtensionOIDs = options.leafExtensionOIDs
        let leaf = try Self.resign(
            leafBuilder.signed(by: intermediate, key: intermediateKey.privateKey, digest: options.leafDigest),
            with: intermediateKey, digest: options.leafDigest)

        self.pki = ApplePKI(
            rootKey: rootKey.privateKey, root: root, intermediateKey: intermediateKey.privateKey,
            intermediate: intermediate, leafKey: leafKey.privateKey, leaf: leaf)
        self.leafSigningKey = leafKey
    }

    /// The root certificate's DER (what `--trust-root` takes).
    public var rootDER: [UInt8] { pki.root.derRepresentation }

    /// A JWS signer with the leaf key, RFC 6979 nonces and the `x5c` chain leaf, intermediate, root.
    public func signer() throws(CryptoError) -> JWSSigner {
        try JWSSigner(deterministicKey: leafSigningKey, certificateChain: pki.x5c)
    }

    /// The certificate with its (randomised) signature replaced by a deterministic one over the same
    /// TBSCertificate and algorithm.
    static func resign(_ certificate: X509Certificate, with key: DeterministicSigningKey, digest: DigestAlgorithm)
        throws(CryptoError) -> X509Certificate
    {
        let der = certificate.derRepresentation
        guard let outer = DER.element(der, at: 0), outer.tag == DER.sequenceTag,
            let tbs = DER.element(der, at: outer.contentStart),
            let algorithm = DER.element(der, at: tbs.end), algorithm.end <= outer.end
        else {
            throw CryptoError(.invalidEncoding, "the certificate to re-sign is not a DER certificate")
        }
        let signature = try key.signature(for: Array(der[tbs.start..<tbs.end]), digest: digest)
        let bitString = DER.tlv(0x03, [0x00] + signature.derRepresentation)
        let rebuilt = DER.sequence(
            Array(der[tbs.start..<tbs.end]) + Array(der[algorithm.start..<algorithm.end]) + bitString)
        return try X509Certificate(derRepresentation: rebuilt)
    }
}
