import LedgerJSON

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A JWS in compact serialization (`header.payload.signature`, each base64url), split and decoded
/// but not yet verified.
///
/// The header is kept as its base64url text and decoded on demand (`decodedHeader()`): every JWS
/// from one signer carries the same header, so the verifier decodes it once and caches the result.
public struct CompactJWS: Sendable {
    /// The largest JWS accepted, in bytes (1 MiB, the webhook's body limit).
    public static let maximumByteCount = 1 << 20
    /// The deepest nesting of arrays and objects accepted in the header and payload: 512, Foundation's
    /// JSONSerialization limit, so a payload Apple's libraries decode (an unused field nested 40 levels
    /// deep) is not refused here. The parser recurses once per level; 512 levels stay well inside the
    /// stack of every thread that verifies (see `JSONParserTests`).
    public static let maximumNestingDepth = 512

    /// The header segment as received (base64url text).
    public let headerSegment: ArraySlice<UInt8>
    /// The decoded payload (a JSON object).
    public let payload: JSONObject
    /// The decoded signature bytes.
    public let signature: [UInt8]
    /// The bytes the signature covers: `base64url(header) "." base64url(payload)`.
    public let signingInput: ArraySlice<UInt8>
    /// The whole JWS, UTF-8.
    let bytes: [UInt8]

    /// Splits `text` and decodes its payload and signature. Anything but three base64url segments
    /// whose payload is a JSON object is `INVALID_JWT_FORMAT`.
    public init(_ text: String) throws(VerificationError) {
        try self.init(bytes: Self.utf8Bytes(of: text))
    }

    /// The UTF-8 bytes of `text`, copied with `memcpy` (`Array(text.utf8)` copies byte by byte, and a
    /// notification's JWS is some 20 KB).
    static func utf8Bytes(of text: String) -> [UInt8] {
        text.utf8.withContiguousStorageIfAvailable(copy) ?? Array(text.utf8)
    }

    /// A copy of `source` made with `memcpy`.
    static func copy(_ source: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: source.count) { buffer, initialized in
            if let from = source.baseAddress, let to = buffer.baseAddress { memcpy(to, from, source.count) }
            initialized = source.count
        }
    }

    /// Splits UTF-8 `bytes` and decodes the payload and signature (see `init(_:)`).
    init(bytes: [UInt8]) throws(VerificationError) {
        guard bytes.count <= Self.maximumByteCount else {
            throw VerificationError(
                .invalidJWTFormat,
                "the JWS is \(bytes.count) bytes, over the \(Self.maximumByteCount)-byte limit")
        }
        guard let (first, second) = bytes.withUnsafeBufferPointer(Self.dots) else {
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
        self.bytes = bytes
    }

    /// The offsets of the two dots when `bytes` holds exactly two (`memchr`, not a byte loop: a
    /// notification's JWS is some 20 KB).
    private static func dots(_ bytes: UnsafeBufferPointer<UInt8>) -> (Int, Int)? {
        guard let base = bytes.baseAddress else { return nil }
        func dot(after start: Int) -> Int? {
            guard start < bytes.count, let found = memchr(base + start, 0x2E, bytes.count - start) else {
                return nil
            }
            return UnsafeRawPointer(found) - UnsafeRawPointer(base)
        }
        guard let first = dot(after: 0), let second = dot(after: first + 1), dot(after: second + 1) == nil
        else { return nil }
        return (first, second)
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
                bytes, limits: JSONLimits(maxBytes: maximumByteCount, maxDepth: maximumNestingDepth))
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
