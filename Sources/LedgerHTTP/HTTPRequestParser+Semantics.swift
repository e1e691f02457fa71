/// The meaning of the framing headers: `Host`, `Content-Length`, `Transfer-Encoding`, `Expect`.
enum HeaderSemantics {
    /// Builds the validated head from a parsed request line and its fields.
    static func head(line: RequestLine, headers: HTTPHeaders, limits: HTTPLimits) throws(HTTPError) -> HTTPRequestHead {
        let hosts = headers.values(for: "Host")
        if line.version == .http11 && hosts.count != 1 {
            throw .badRequest(
                hosts.isEmpty
                    ? "the HTTP/1.1 request has no Host header; send one" : "the request has more than one Host header")
        }
        let framing = try framing(version: line.version, headers: headers, limits: limits)
        var expectsContinue = false
        if let expect = headers["Expect"] {
            guard HTTPHeaders.equalsIgnoringCase(expect, "100-continue"), headers.values(for: "Expect").count == 1
            else {
                throw HTTPError(
                    .expectationFailed, code: .expectationFailed,
                    message: "only Expect: 100-continue is supported")
            }
            // An HTTP/1.0 client knows no 1xx responses: its expectation is ignored (RFC 9110 §10.1.1, §15.2).
            expectsContinue = framing != .none && line.version == .http11
        }
        let request = HTTPRequest(
            method: line.method, target: line.target, parts: line.parts, version: line.version, headers: headers)
        return HTTPRequestHead(request: request, framing: framing, expectsContinue: expectsContinue)
    }

    /// How the body is delimited, refusing ambiguous or unsupported framing.
    static func framing(version: HTTPVersion, headers: HTTPHeaders, limits: HTTPLimits) throws(HTTPError)
        -> BodyFraming
    {
        let lengths = headers.values(for: "Content-Length")
        let codings = headers.values(for: "Transfer-Encoding")
        if !codings.isEmpty {
            if !lengths.isEmpty {
                throw .badRequest("the request has both Transfer-Encoding and Content-Length; send only one")
            }
            if version == .http10 {
                throw .badRequest("Transfer-Encoding is not allowed in an HTTP/1.0 request")
            }
            guard codings.count == 1, HTTPHeaders.equalsIgnoringCase(codings[0], "chunked") else {
                throw HTTPError(
                    .notImplemented, code: .notImplemented,
                    message: "only Transfer-Encoding: chunked is supported; send the body with Content-Length")
            }
            guard limits.allowsChunkedBodies else {
                throw HTTPError(
                    .lengthRequired, code: .lengthRequired,
                    message: "chunked request bodies are not accepted; send the body with Content-Length")
            }
            return .chunked
        }
        guard let text = lengths.first else { return .none }
        if lengths.count > 1 {
            throw .badRequest("the request has more than one Content-Length header; send exactly one")
        }
        let digits = text.utf8
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw .badRequest("the Content-Length header is not a decimal number of bytes")
        }
        var length = 0
        for digit in digits {
            length = length * 10 + Int(digit - 0x30)
            if length > limits.maxBodyBytes { throw payloadTooLarge(limits) }
        }
        return length == 0 ? .none : .length(length)
    }

    /// The 413 for a body over the limit.
    static func payloadTooLarge(_ limits: HTTPLimits) -> HTTPError {
        HTTPError(
            .payloadTooLarge, code: .payloadTooLarge,
            message: "the request body exceeds \(limits.maxBodyBytes) bytes; send a smaller body")
    }
}
