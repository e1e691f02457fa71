import LedgerAppStore
import LedgerCrypto
import LedgerJSON

/// Signs JSON payloads into compact JWS the way the App Store does: header
/// `{"alg":"ES256","x5c":[leaf, intermediate, root]}` (x5c entries standard base64 DER), payload
/// and a raw R‖S P-256 signature, each segment base64url without padding.
///
/// Used by the simulator to produce realistic notifications, and by tests.
public struct JWSSigner: Sendable {
    /// The leaf's private key (P-256).
    public let privateKey: ECPrivateKey
    /// The `x5c` chain, DER: leaf, intermediate, root (any count is written as given).
    public let certificateChain: [[UInt8]]
    private let encodedHeader: [UInt8]
    /// When set, signatures use RFC 6979 nonces (same payload, same signature).
    private let deterministicKey: DeterministicSigningKey?

    /// Creates a signer for a P-256 key and its chain.
    public init(privateKey: ECPrivateKey, certificateChain: [[UInt8]]) throws(CryptoError) {
        let header: JSONObject = [
            "alg": "ES256", "x5c": .array(certificateChain.map { .string(Base64.encode($0)) }),
        ]
        try self.init(privateKey: privateKey, header: header)
    }

    /// Creates a signer that writes `header` as is (tests use it for unusual headers). The key must
    /// still be P-256: the signature is always ES256.
    public init(privateKey: ECPrivateKey, header: JSONObject) throws(CryptoError) {
        try self.init(privateKey: privateKey, header: header, deterministicKey: nil)
    }

    /// Creates a signer whose signatures are deterministic (RFC 6979), for reproducible output.
    public init(deterministicKey: DeterministicSigningKey, certificateChain: [[UInt8]]) throws(CryptoError) {
        let header: JSONObject = [
            "alg": "ES256", "x5c": .array(certificateChain.map { .string(Base64.encode($0)) }),
        ]
        try self.init(privateKey: deterministicKey.privateKey, header: header, deterministicKey: deterministicKey)
    }

    private init(privateKey: ECPrivateKey, header: JSONObject, deterministicKey: DeterministicSigningKey?)
        throws(CryptoError)
    {
        guard privateKey.curve == .p256 else {
            throw CryptoError(.unsupportedKey, "ES256 signs with a P-256 key, not \(privateKey.curve)")
        }
        self.privateKey = privateKey
        self.certificateChain = (header["x5c"]?.array ?? []).compactMap {
            $0.string.flatMap(Base64.decode)
        }
        self.encodedHeader = Array(Base64.encodeURL(JSONValue.object(header).serializedBytes()).utf8)
        self.deterministicKey = deterministicKey
    }

    /// Signs a JSON payload (serialized compactly, keys in order).
    public func sign(_ payload: JSONValue) throws(CryptoError) -> String {
        try sign(payloadBytes: payload.serializedBytes())
    }

    /// Signs payload bytes as they are.
    public func sign(payloadBytes: [UInt8]) throws(CryptoError) -> String {
        var signingInput = encodedHeader
        signingInput.append(UInt8(ascii: "."))
        signingInput += Array(Base64.encodeURL(payloadBytes).utf8)
        let signature: ECDSASignature
        if let deterministicKey {
            signature = try deterministicKey.signature(for: signingInput, digest: .sha256)
        } else {
            signature = try privateKey.signature(for: signingInput, digest: .sha256)
        }
        signingInput.append(UInt8(ascii: "."))
        signingInput += Array(Base64.encodeURL(signature.rawRepresentation).utf8)
        return String(decoding: signingInput, as: UTF8.self)
    }
}
