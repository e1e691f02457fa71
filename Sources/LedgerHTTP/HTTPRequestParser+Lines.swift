/// The request line: `method SP request-target SP HTTP-version` (RFC 9112 §3).
struct RequestLine {
    var method: HTTPMethod
    var target: String
    var parts: RequestTarget.Parts
    var version: HTTPVersion

    /// Parses the line without its CRLF.
    static func parse(_ line: ArraySlice<UInt8>) throws(HTTPError) -> RequestLine {
        guard let firstSpace = line.firstIndex(of: ASCII.space) else {
            throw .badRequest("the request line is malformed; expected METHOD /path HTTP/1.1")
        }
        let methodBytes = line[line.startIndex..<firstSpace]
        guard !methodBytes.isEmpty, methodBytes.allSatisfy(ASCII.isTokenChar) else {
            throw .badRequest("the request method is missing or not a token")
        }
        let rest = line[(firstSpace + 1)...]
        guard let secondSpace = rest.firstIndex(of: ASCII.space) else {
            throw .badRequest("the request line is malformed; expected METHOD /path HTTP/1.1")
        }
        let targetBytes = Array(rest[rest.startIndex..<secondSpace])
        let versionBytes = rest[(secondSpace + 1)...]
        let version = try parseVersion(versionBytes)
        let parts = try RequestTarget.parse(targetBytes)
        return RequestLine(
            method: HTTPMethod(String(decoding: methodBytes, as: UTF8.self)),
            target: String(decoding: targetBytes, as: UTF8.self), parts: parts, version: version)
    }

    /// Parses `HTTP/1.1` or `HTTP/1.0`; another well-formed version is 505, anything else 400.
    private static func parseVersion(_ bytes: ArraySlice<UInt8>) throws(HTTPError) -> HTTPVersion {
        let b = Array(bytes)
        guard b.count == 8, b.starts(with: Array("HTTP/".utf8)), b[6] == UInt8(ascii: "."),
            let major = digit(b[5]), let minor = digit(b[7])
        else { throw .badRequest("the request line's HTTP version is malformed; expected HTTP/1.1") }
        guard major == 1, minor <= 1 else {
            throw HTTPError(
                .versionNotSupported, code: .versionNotSupported,
                message: "HTTP/\(major).\(minor) is not supported; use HTTP/1.1")
        }
        return HTTPVersion(major: major, minor: minor)
    }

    private static func digit(_ byte: UInt8) -> Int? {
        byte >= 0x30 && byte <= 0x39 ? Int(byte - 0x30) : nil
    }
}

/// Header field lines: `name ":" OWS value OWS` (RFC 9112 §5).
enum HeaderFields {
    /// Parses the field lines between the request line and the blank line, each ending in CRLF
    /// (`bytes` excludes the final CRLF of the last field).
    static func parse(_ bytes: ArraySlice<UInt8>, limits: HTTPLimits) throws(HTTPError) -> HTTPHeaders {
        var headers = HTTPHeaders()
        if bytes.isEmpty { return headers }
        var lineStart = bytes.startIndex
        while lineStart <= bytes.endIndex {
            var lineEnd = lineStart
            while lineEnd < bytes.endIndex, bytes[lineEnd] != ASCII.cr { lineEnd += 1 }
            if headers.count >= limits.maxHeaderCount {
                throw HTTPError(
                    .headersTooLarge, code: .headersTooLarge,
                    message: "the request has more than \(limits.maxHeaderCount) header fields")
            }
            let (name, value) = try parseField(bytes[lineStart..<lineEnd])
            headers.add(name, value)
            lineStart = lineEnd + 2
        }
        return headers
    }

    /// Parses one field line without its CRLF.
    static func parseField(_ line: ArraySlice<UInt8>) throws(HTTPError) -> (String, String) {
        guard let first = line.first else { throw .badRequest("the request has an empty header line") }
        if first == ASCII.space || first == ASCII.tab {
            throw .badRequest("the request uses obsolete header line folding; send each header on one line")
        }
        guard let colon = line.firstIndex(of: ASCII.colon) else {
            throw .badRequest("a header line has no colon; expected Name: value")
        }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(ASCII.isTokenChar) else {
            throw .badRequest("a header name is empty or has a character not allowed in a token (e.g. a space)")
        }
        var valueStart = colon + 1
        var valueEnd = line.endIndex
        while valueStart < valueEnd, line[valueStart] == ASCII.space || line[valueStart] == ASCII.tab {
            valueStart += 1
        }
        while valueEnd > valueStart, line[valueEnd - 1] == ASCII.space || line[valueEnd - 1] == ASCII.tab {
            valueEnd -= 1
        }
        let value = line[valueStart..<valueEnd]
        guard value.allSatisfy(ASCII.isFieldValueChar) else {
            throw .badRequest(
                "the header \(String(decoding: name, as: UTF8.self)) has a control character in its value")
        }
        return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }
}
