import LedgerJSON

/// A JWS in compact serialization (`header.payload.signature`, each base64url), split and decoded
/// but not yet verified.
///
/// The header is kept as its base64url text and decoded on demand (`decodedHeader()`): every JWS
/// from one signer carries the same header, so the verifier decodes it once and caches the result.
public struct CompactJWS: Sendable {
    /// The largest JWS accepted, in bytes (1 MiB, the webhook's body limit).
    public static let maximumByteCount = 1 << 20

    /// The header segment as received (base64url text).
    public let headerSegment: ArraySlice<UInt8>
    /// The decoded payload (a JSON object).
    public let payload: JSONObject
    /// The decoded signature bytes.
    public let signature: [UInt8]
    /// The bytes the signature covers: `base64url(header) "." base64url(payload)`.
    public let signingInput: ArraySlice<UInt8>

    /// Splits `text` and decodes its payload and signature. Anything but three base64url segments
    /// whose payload is a JSON object is `INVALID_JWT_FORMAT`.
    public init(_ text: String) throws(VerificationError) {
        let bytes = Array(text.utf8)
        guard bytes.count <= Self.maximumByteCount else {
            throw VerificationError(
                .invalidJWTFormat,
                "the JWS is \(bytes.count) bytes, over the \(Self.maximumByteCount)-byte limit")
        }
        guard let first = bytes.firstIndex(of: UInt8(ascii: ".")),
            let second = bytes[(first + 1)...].firstIndex(of: UInt8(ascii: ".")),
            !bytes[(second + 1)...].contains(UInt8(ascii: "."))
        else {
            throw VerificationError(
                .invalidJWTFormat, "the text is not a compact JWS: expected 3 dot-separated segments")
        }
        self.headerSegment = bytes[..<first]
        self.payload = try Self.decodeObject(bytes[(first + 1)..<second], segment: "payload")
        guard let signature = Base64.decodeURL(bytes[(second + 1)...]) else {
            throw VerificationError(.invalidJWTFormat, "the JWS signature segment is not base64url")
        }
        self.signature = signature
        self.signingInput = bytes[..<second]
    }

    /// Decodes the JOSE header (a JSON object), or throws `INVALID_JWT_FORMAT`.
    public func decodedHeader() throws(VerificationError) -> JSONObject {
        try Self.decodeObject(headerSegment, segment: "header")
    }

    private static func decodeObject(_ text: ArraySlice<UInt8>, segment: String)
        throws(VerificationError)
        -> JSONObject
    {
        guard let bytes = Base64.decodeURL(text) else {
            throw VerificationError(.invalidJWTFormat, "the JWS \(segment) segment is not base64url")
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(
                bytes, limits: JSONLimits(maxBytes: maximumByteCount, maxDepth: 32))
        } catch {
            throw VerificationError(
                .invalidJWTFormat, "the JWS \(segment) is not JSON: \(error.message)", cause: error)
        }
        guard let object = value.object else {
            throw VerificationError(.invalidJWTFormat, "the JWS \(segment) is not a JSON object")
        }
        return object
    }
}
