import LedgerCrypto

/// An App Store Connect in-app purchase key: the `.p8` file's P-256 private key, its key id and the team's
/// issuer id. The key is never printed, logged or put into an error message.
public struct AppStoreAPIKey: Sendable {
    /// The key id (`kid`), e.g. `2X9R4HXF34`.
    public var keyId: String
    /// The issuer id (`iss`) from App Store Connect's Keys page, a UUID.
    public var issuerId: String
    /// The private key.
    public let privateKey: ECPrivateKey

    /// Wraps a private key; it must be a P-256 key (ES256).
    public init(keyId: String, issuerId: String, privateKey: ECPrivateKey) throws(AppStoreAPIError) {
        guard privateKey.curve == .p256 else {
            throw AppStoreAPIError(
                .invalidKey, "the in-app purchase key is not a P-256 key; App Store Connect's keys sign ES256")
        }
        guard !keyId.isEmpty, !issuerId.isEmpty else {
            throw AppStoreAPIError(.invalidKey, "the key id and the issuer id must not be empty")
        }
        self.keyId = keyId
        self.issuerId = issuerId
        self.privateKey = privateKey
    }

    /// Reads the `.p8` file's text: a PEM `PRIVATE KEY` (PKCS#8) block, as App Store Connect hands it out.
    public init(keyId: String, issuerId: String, p8 text: String) throws(AppStoreAPIError) {
        let key: ECPrivateKey
        do {
            key = try ECPrivateKey(pemRepresentation: text)
        } catch {
            throw AppStoreAPIError(
                .invalidKey,
                "the key file holds no unencrypted PEM private key (App Store Connect's .p8 key: -----BEGIN PRIVATE "
                    + "KEY-----)")
        }
        try self.init(keyId: keyId, issuerId: issuerId, privateKey: key)
    }

    /// Reads a key file's bytes: the `.p8` PEM text, or the same PKCS#8 key as DER.
    public init(keyId: String, issuerId: String, file bytes: [UInt8]) throws(AppStoreAPIError) {
        if let der = try? ECPrivateKey(derRepresentation: bytes) {
            try self.init(keyId: keyId, issuerId: issuerId, privateKey: der)
            return
        }
        try self.init(keyId: keyId, issuerId: issuerId, p8: String(decoding: bytes, as: UTF8.self))
    }
}
