import CCrypto
import Synchronization

/// An elliptic-curve public key on P-256 or P-384, owning one libcrypto `EVP_PKEY` and one
/// reference to its `EC_KEY` (each freed in `deinit`, exactly once).
///
/// Verification uses the `EC_KEY` with `ECDSA_verify` (deprecated in OpenSSL 3, still supported):
/// the `EVP_PKEY_CTX` route costs a context and a provider fetch per call, about 15% of a P-256
/// verification, and verification is the ledger's hot path.
///
/// `@unchecked Sendable`: neither object is mutated after construction, and libcrypto's ECDSA
/// verification only reads the key, so concurrent verifications are safe.
public final class ECPublicKey: @unchecked Sendable {
    /// The owned `EVP_PKEY *`.
    let pkey: OpaquePointer
    /// The owned reference to the key's `EC_KEY *`.
    let ecKey: OpaquePointer
    /// The key's curve.
    public let curve: ECCurve
    /// The table of the key's multiples (P-256), built after its first verifications.
    private let multiples = Mutex(Multiples())

    /// How many verifications a P-256 key makes before it builds its table of multiples
    /// (``KeyMultiplesVerifier``): a key used once or twice (a certificate, a test) is not worth the table.
    static let tableAfterVerifications = 16

    /// The state of a key's table of multiples.
    private struct Multiples {
        var verifications = 0
        var building = false
        var verifier: KeyMultiplesVerifier?
    }

    /// Takes ownership of `pkey`; frees it and throws when it is not an EC key on P-256 or P-384.
    init(taking pkey: OpaquePointer) throws(CryptoError) {
        guard let curve = ECKeyInspection.curve(of: pkey) else {
            EVP_PKEY_free(pkey)
            throw CryptoError(
                .unsupportedKey, "the public key is not an elliptic-curve key on P-256 or P-384")
        }
        guard let ecKey = EVP_PKEY_get1_EC_KEY(pkey) else {
            EVP_PKEY_free(pkey)
            throw CryptoError.openSSL(.unsupportedKey, "the public key has no EC_KEY form")
        }
        self.pkey = pkey
        self.ecKey = ecKey
        self.curve = curve
    }

    deinit {
        EC_KEY_free(ecKey)
        EVP_PKEY_free(pkey)
    }

    /// Decodes a DER SubjectPublicKeyInfo.
    public convenience init(derRepresentation der: [UInt8]) throws(CryptoError) {
        let decoded = OpenSSLCoding.decodeDER(
            der, free: { EVP_PKEY_free($0) },
            decode: { cursor, length in
                d2i_PUBKEY(nil, cursor, length)
            })
        guard let decoded else {
            throw CryptoError.openSSL(.invalidEncoding, "the bytes are not a DER SubjectPublicKeyInfo")
        }
        try self.init(taking: decoded)
    }

    /// Decodes a PEM `PUBLIC KEY` block.
    public convenience init(pemRepresentation pem: String) throws(CryptoError) {
        let decoded = OpenSSLCoding.withReadBIO(pem) { bio in PEM_read_bio_PUBKEY(bio, nil, nil, nil) }
        guard let decoded else {
            throw CryptoError.openSSL(.invalidEncoding, "the text holds no PEM PUBLIC KEY block")
        }
        try self.init(taking: decoded)
    }

    /// The DER SubjectPublicKeyInfo.
    public var derRepresentation: [UInt8] {
        OpenSSLCoding.encodeDER { cursor in i2d_PUBKEY(pkey, cursor) } ?? []
    }

    /// The PEM `PUBLIC KEY` block.
    public var pemRepresentation: String {
        OpenSSLCoding.writingPEM { bio in PEM_write_bio_PUBKEY(bio, pkey) } ?? ""
    }

    /// Whether `signature` is this key's ECDSA signature over `data` hashed with `digest`.
    ///
    /// A digest longer than the curve (SHA-384 with P-256) is truncated as ECDSA specifies.
    public func isValidSignature<D: ContiguousBytes>(
        _ signature: ECDSASignature, for data: D, digest: DigestAlgorithm
    ) -> Bool {
        isValidSignature(signature, forDigest: digest.hash(data))
    }

    /// Whether `signature` is this key's ECDSA signature over an already computed message digest.
    ///
    /// A P-256 key that has verified a few signatures answers with its table of multiples
    /// (``KeyMultiplesVerifier``, about twice as fast); otherwise R and S go to libcrypto as integers
    /// (`ECDSA_do_verify`): no DER to build here and parse there.
    public func isValidSignature(_ signature: ECDSASignature, forDigest digest: [UInt8]) -> Bool {
        let width = curve.coordinateByteCount
        if curve == .p256, signature.coordinateByteCount == width, !digest.isEmpty, digest.count <= 64,
            let verifier = multiplesVerifier()
        {
            return signature.rawRepresentation.withUnsafeBufferPointer { raw in
                verifier.isValid(raw: raw, width: width, digest: digest)
            }
        }
        return isValidSignatureByLibcrypto(signature, forDigest: digest)
    }

    /// The key's table of multiples once built; builds it (on this thread, once) when the key has verified
    /// enough signatures. Nil before that, or when libcrypto could not build it.
    private func multiplesVerifier() -> KeyMultiplesVerifier? {
        let (verifier, build) = multiples.withLock { state -> (KeyMultiplesVerifier?, Bool) in
            if let verifier = state.verifier { return (verifier, false) }
            state.verifications += 1
            guard !state.building, state.verifications >= Self.tableAfterVerifications else { return (nil, false) }
            state.building = true  // stays set when the build fails: never tried again
            return (nil, true)
        }
        guard build else { return verifier }
        let built = KeyMultiplesVerifier(ecKey: ecKey)
        multiples.withLock { $0.verifier = built }
        return built
    }

    /// Whether the key answers with its table of multiples now.
    var hasMultiplesTable: Bool { multiples.withLock { $0.verifier != nil } }

    /// ``isValidSignature(_:forDigest:)`` through libcrypto's own `ECDSA_do_verify`.
    func isValidSignatureByLibcrypto(_ signature: ECDSASignature, forDigest digest: [UInt8]) -> Bool {
        let width = curve.coordinateByteCount
        guard signature.coordinateByteCount == width, !digest.isEmpty, digest.count <= 64,
            let pair = ECDSA_SIG_new()
        else { return false }
        defer { ECDSA_SIG_free(pair) }
        let integers = signature.rawRepresentation.withUnsafeBufferPointer { raw in
            (BN_bin2bn(raw.baseAddress, Int32(width), nil), BN_bin2bn(raw.baseAddress! + width, Int32(width), nil))
        }
        guard let r = integers.0, let s = integers.1, ECDSA_SIG_set0(pair, r, s) == 1 else {
            BN_free(integers.0)
            BN_free(integers.1)
            OpenSSLErrorQueue.clear()
            return false
        }
        let result = ECDSA_do_verify(digest, Int32(digest.count), pair, ecKey)
        if result != 1 { OpenSSLErrorQueue.clear() }
        return result == 1
    }

    /// Whether a DER-encoded ECDSA signature verifies over an already computed message digest.
    public func isValidSignature(derSignature: [UInt8], forDigest digest: [UInt8]) -> Bool {
        guard !derSignature.isEmpty, derSignature.count < 1024, !digest.isEmpty, digest.count <= 64
        else {
            return false
        }
        let result = ECDSA_verify(
            0, digest, Int32(digest.count), derSignature, Int32(derSignature.count), ecKey)
        if result != 1 { OpenSSLErrorQueue.clear() }
        return result == 1
    }
}

/// Reads the type and curve of an `EVP_PKEY`.
enum ECKeyInspection {
    /// The curve of an EC key, or nil for another key type or curve.
    static func curve(of pkey: OpaquePointer) -> ECCurve? {
        guard EVP_PKEY_get_base_id(pkey) == EVP_PKEY_EC else { return nil }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(pkey, &name, name.count, &length) == 1 else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        let text = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return ECCurve(groupName: text)
    }
}
