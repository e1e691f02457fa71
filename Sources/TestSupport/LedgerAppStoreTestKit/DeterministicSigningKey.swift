import LedgerCrypto

/// An ECDSA private key whose signatures are deterministic: the nonce is derived from the key and the
/// message as RFC 6979 specifies, so the same message always gets the same signature.
///
/// libcrypto 3.0 draws ECDSA nonces at random, which would make every run of the simulator sign its
/// notifications (and its test PKI) differently. With keys derived from a seed and RFC 6979 nonces, the
/// same seed gives byte-identical output. The signatures are ordinary ECDSA signatures that any verifier
/// accepts.
public struct DeterministicSigningKey: Sendable {
    /// The key's curve.
    public let curve: ECCurve
    /// The same key as a libcrypto key (its public key, certificate building).
    public let privateKey: ECPrivateKey
    private let scalar: [UInt64]
    private let field: ScalarField
    private let group: CurveGroup

    /// Creates the key with the private scalar given as big-endian bytes (in `[1, n)`).
    public init(curve: ECCurve, scalar bytes: [UInt8]) throws(CryptoError) {
        let field = ScalarField(curve: curve)
        guard bytes.count <= field.byteCount else {
            throw CryptoError(.invalidArgument, "a \(curve) private scalar has at most \(field.byteCount) bytes")
        }
        let scalar = ScalarField.limbs(bigEndian: bytes, count: field.limbs)
        guard field.isValidScalar(scalar) else {
            throw CryptoError(.invalidArgument, "a \(curve) private scalar must be in [1, n)")
        }
        self.curve = curve
        self.field = field
        self.scalar = scalar
        self.group = try CurveGroup(curve: curve)
        self.privateKey = try ECPrivateKey(derRepresentation: Self.pkcs8(curve: curve, scalar: field.bytes(scalar)))
    }

    /// Derives a key from seed material: the scalar is SHA-384(seed ‖ 0) ‖ SHA-384(seed ‖ 1) reduced mod n.
    public init(curve: ECCurve, seed: [UInt8]) throws(CryptoError) {
        let field = ScalarField(curve: curve)
        let wide = DigestAlgorithm.sha384.hash(seed + [0]) + DigestAlgorithm.sha384.hash(seed + [1])
        var scalar = field.reduce(ScalarField.limbs(bigEndian: wide, count: wide.count / 8))
        if !field.isValidScalar(scalar) { scalar[0] = 1 }
        try self.init(curve: curve, scalar: field.bytes(scalar))
    }

    /// The signature of `data` hashed with `digest`.
    public func signature<D: ContiguousBytes>(for data: D, digest: DigestAlgorithm) throws(CryptoError)
        -> ECDSASignature
    {
        try signature(forDigest: digest.hash(data), digest: digest)
    }

    /// The signature of a message digest made with `digest` (which also drives the RFC 6979 HMAC).
    public func signature(forDigest hash: [UInt8], digest: DigestAlgorithm) throws(CryptoError) -> ECDSASignature {
        let z = bitsToScalar(hash)
        var generator = NonceGenerator(
            digest: digest, key: field.bytes(scalar), message: field.bytes(field.reducedOnce(z)))
        let zBytes = field.bytes(field.reducedOnce(z))
        let dBytes = field.bytes(scalar)
        while true {
            let k = bitsToScalar(generator.next(byteCount: field.byteCount))
            guard field.isValidScalar(k) else { continue }
            guard let (r, s) = try group.sign(z: zBytes, k: field.bytes(k), d: dBytes) else { continue }
            return try ECDSASignature(rawRepresentation: r + s)
        }
    }

    /// RFC 6979 bits2int: the leftmost bits of `bytes`, as many as the order has.
    private func bitsToScalar(_ bytes: [UInt8]) -> [UInt64] {
        if bytes.count <= field.byteCount {
            return ScalarField.limbs(bigEndian: bytes, count: field.limbs)
        }
        return ScalarField.limbs(bigEndian: Array(bytes.prefix(field.byteCount)), count: field.limbs)
    }

    /// A PKCS#8 PrivateKeyInfo holding a SEC 1 ECPrivateKey with only the scalar (libcrypto derives the
    /// public key).
    static func pkcs8(curve: ECCurve, scalar: [UInt8]) -> [UInt8] {
        let ecPublicKey: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
        let curveOID: [UInt8] =
            curve == .p256
            ? [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07] : [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22]
        let sec1 = DER.sequence([0x02, 0x01, 0x01] + DER.tlv(0x04, scalar))
        return DER.sequence([0x02, 0x01, 0x00] + DER.sequence(ecPublicKey + curveOID) + DER.tlv(0x04, sec1))
    }
}
