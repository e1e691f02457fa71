import LedgerJSON

extension SignedDataVerifier {
    /// The largest request body accepted, in bytes (1 MiB, as the webhook enforces).
    public static let maximumBodyByteCount = 1 << 20

    /// The `signedPayload` of an App Store Server Notification request body
    /// (`{"signedPayload":"…"}`). A body that is not JSON, or lacks a string `signedPayload`, is
    /// `INVALID_JWT_FORMAT`.
    public static func signedPayload(fromBody body: [UInt8]) throws(VerificationError) -> String {
        guard body.count <= maximumBodyByteCount else {
            throw VerificationError(
                .invalidJWTFormat,
                "the request body is \(body.count) bytes, over the \(maximumBodyByteCount)-byte limit")
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(
                body, limits: JSONLimits(maxBytes: maximumBodyByteCount, maxDepth: CompactJWS.maximumNestingDepth))
        } catch {
            throw VerificationError(
                .invalidJWTFormat,
                "the request body is not JSON (\(error.message)); expected {\"signedPayload\":\"…\"}",
                cause: error)
        }
        guard let object = value.object else {
            throw VerificationError(
                .invalidJWTFormat,
                "the request body is not a JSON object; expected {\"signedPayload\":\"…\"}")
        }
        guard let payload = object["signedPayload"]?.string else {
            throw VerificationError(
                .invalidJWTFormat,
                "the request body has no signedPayload string; expected {\"signedPayload\":\"…\"} as Apple sends it"
            )
        }
        return payload
    }

    /// The `signedPayload` of a request body as UTF-8 bytes, with the errors of
    /// `signedPayload(fromBody:)`. A body of Apple's exact shape, `{"signedPayload":"…"}` around plain
    /// ASCII, is read without building a JSON value or a string.
    static func signedPayloadBytes(fromBody body: [UInt8]) throws(VerificationError) -> [UInt8] {
        if body.count <= maximumBodyByteCount, let range = JSONValue.soleStringMember("signedPayload", in: body) {
            return body.withUnsafeBufferPointer { CompactJWS.copy(UnsafeBufferPointer(rebasing: $0[range])) }
        }
        return CompactJWS.utf8Bytes(of: try signedPayload(fromBody: body))
    }

    /// The signed data in a file or request: a request body when it starts (after white space) with
    /// `{`, otherwise a compact JWS with surrounding white space removed.
    public static func signedData(fromInput input: [UInt8]) throws(VerificationError) -> String {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        guard let first = input.firstIndex(where: { !isSpace($0) }),
            let last = input.lastIndex(where: { !isSpace($0) })
        else {
            throw VerificationError(
                .invalidJWTFormat, "the input is empty; expected a JWS or a request body")
        }
        if input[first] == UInt8(ascii: "{") { return try signedPayload(fromBody: input) }
        return String(decoding: input[first...last], as: UTF8.self)
    }
}
