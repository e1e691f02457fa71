import CCrypto

/// An elliptic-curve private key on P-256 or P-384, owning one libcrypto `EVP_PKEY` (freed in
/// `deinit`, exactly once). Used to build test PKIs and to sign simulated notifications.
///
/// `@unchecked Sendable`: the key is never mutated after construction, and each signing call makes
/// its own `EVP_PKEY_CTX`.
public final class ECPrivateKey: @unchecked Sendable {
    /// The owned `EVP_PKEY *`.
    let pkey: OpaquePointer
    /// The key's curve.
    public let curve: ECCurve
    /// The matching public key.
    public let publicKey: ECPublicKey

    /// Takes ownership of `pkey`; frees it and throws when it is not an EC key on P-256 or P-384.
    private init(taking pkey: OpaquePointer) throws(CryptoError) {
        guard let curve = ECKeyInspection.curve(of: pkey) else {
            EVP_PKEY_free(pkey)
            throw CryptoError(
                .unsupportedKey, "the private key is not an elliptic-curve key on P-256 or P-384")
        }
        guard let spki = OpenSSLCoding.encodeDER({ cursor in i2d_PUBKEY(pkey, cursor) }) else {
            EVP_PKEY_free(pkey)
            throw CryptoError.openSSL(.libraryFailure, "could not derive the public key of a private key")
        }
        do {
            self.publicKey = try ECPublicKey(derRepresentation: spki)
        } catch {
            EVP_PKEY_free(pkey)
            throw error
        }
        self.pkey = pkey
        self.curve = curve
    }

    deinit { EVP_PKEY_free(pkey) }

    /// Generates a fresh key on `curve` from libcrypto's CSPRNG.
    public convenience init(generating curve: ECCurve) throws(CryptoError) {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw CryptoError.openSSL(.libraryFailure, "could not create a key-generation context")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var generated: OpaquePointer? = nil
        guard EVP_PKEY_keygen_init(context) == 1,
            EVP_PKEY_CTX_set_group_name(context, curve.groupName) == 1,
            EVP_PKEY_generate(context, &generated) == 1, let generated
        else {
            throw CryptoError.openSSL(.libraryFailure, "could not generate a \(curve) key")
        }
        try self.init(taking: generated)
    }

    /// Decodes a DER private key: PKCS#8 PrivateKeyInfo (or SEC 1 ECPrivateKey).
    public convenience init(derRepresentation der: [UInt8]) throws(CryptoError) {
        let decoded = OpenSSLCoding.decodeDER(
            der, free: { EVP_PKEY_free($0) },
            decode: { cursor, length in
                d2i_AutoPrivateKey(nil, cursor, length)
            })
        guard let decoded else {
            throw CryptoError.openSSL(
                .invalidEncoding, "the bytes are not a DER PKCS#8 or SEC 1 private key")
        }
        try self.init(taking: decoded)
    }

    /// Decodes a PEM `PRIVATE KEY` (PKCS#8) or `EC PRIVATE KEY` block; encrypted keys are refused.
    public convenience init(pemRepresentation pem: String) throws(CryptoError) {
        let decoded = OpenSSLCoding.withReadBIO(pem) { bio in
            PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let decoded else {
            throw CryptoError.openSSL(.invalidEncoding, "the text holds no unencrypted PEM private key")
        }
        try self.init(taking: decoded)
    }

    /// The DER PKCS#8 PrivateKeyInfo.
    public var derRepresentation: [UInt8] {
        guard let info = EVP_PKEY2PKCS8(pkey) else {
            OpenSSLErrorQueue.clear()
            return []
        }
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        return OpenSSLCoding.encodeDER { cursor in i2d_PKCS8_PRIV_KEY_INFO(info, cursor) } ?? []
    }

    /// The PEM `PRIVATE KEY` (PKCS#8, unencrypted) block.
    public var pemRepresentation: String {
        OpenSSLCoding.writingPEM { bio in PEM_write_bio_PrivateKey(bio, pkey, nil, nil, 0, nil, nil) }
            ?? ""
    }

    /// Signs `data` hashed with `digest`; the result converts to raw R‖S or DER.
    public func signature<D: ContiguousBytes>(for data: D, digest: DigestAlgorithm)
        throws(CryptoError)
        -> ECDSASignature
    {
        try signature(forDigest: digest.hash(data))
    }

    /// Signs an already computed message digest.
    public func signature(forDigest digest: [UInt8]) throws(CryptoError) -> ECDSASignature {
        guard let context = EVP_PKEY_CTX_new(pkey, nil) else {
            throw CryptoError.openSSL(.libraryFailure, "could not create a signing context")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var length = 0
        guard EVP_PKEY_sign_init(context) == 1,
            EVP_PKEY_sign(context, nil, &length, digest, digest.count) == 1
        else {
            throw CryptoError.openSSL(.libraryFailure, "could not start an ECDSA signature")
        }
        var der = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_sign(context, &der, &length, digest, digest.count) == 1 else {
            throw CryptoError.openSSL(.libraryFailure, "ECDSA signing failed")
        }
        return try ECDSASignature(derRepresentation: Array(der.prefix(length)), curve: curve)
    }
}
