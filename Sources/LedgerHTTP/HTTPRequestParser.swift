/// The HTTP/1.1 request parser: pure functions over bytes, with strict limits (RFC 9112).
///
/// The parser never reads past the limits in ``HTTPLimits``, never trusts a length before checking it,
/// and refuses ambiguous framing (duplicate `Content-Length`, `Transfer-Encoding` with `Content-Length`)
/// that request smuggling relies on. Lines end in CRLF; bare LF or CR, obsolete line folding, whitespace
/// before a header colon and control bytes in values are refused with 400. It is fuzzed by
/// `Scripts/fuzz` (see `Sources/Tools/LedgerFuzz`).
public enum HTTPRequestParser {
    /// Parses a whole request (head and body) from the start of `bytes`.
    ///
    /// - Returns: the request and how many bytes it used, or nil when `bytes` holds only part of a request.
    /// - Throws: ``HTTPError`` with the status the client should get (400, 411, 413, 414, 417, 431, 501, 505).
    public static func parse(
        _ bytes: ArraySlice<UInt8>, limits: HTTPLimits = HTTPLimits()
    ) throws(HTTPError) -> (request: HTTPRequest, consumed: Int)? {
        guard let (head, headLength) = try parseHead(bytes, limits: limits) else { return nil }
        var request = head.request
        let bodyStart = bytes.startIndex + headLength
        switch head.framing {
        case .none:
            return (request, headLength)
        case .length(let length):
            guard bytes.count - headLength >= length else { return nil }
            request.body = Array(bytes[bodyStart..<(bodyStart + length)])
            return (request, headLength + length)
        case .chunked:
            var decoder = ChunkedBodyDecoder(limits: limits)
            let used = try decoder.feed(bytes[bodyStart...])
            guard decoder.isComplete else { return nil }
            request.body = decoder.body
            return (request, headLength + used)
        }
    }

    /// Parses a request head from the start of `bytes`.
    ///
    /// Fails early: a malformed or overlong request line is refused as soon as it is seen, before the rest
    /// of the head arrives. Leading blank lines (CRLF) are skipped, as RFC 9112 §2.2 allows.
    ///
    /// - Parameter searchFrom: how many bytes of `bytes` were already searched for the blank line without
    ///   finding it in an earlier call; lets a caller receiving bytes slowly avoid rescanning.
    /// - Returns: the head and its length including the blank line, or nil when incomplete.
    public static func parseHead(
        _ bytes: ArraySlice<UInt8>, limits: HTTPLimits = HTTPLimits(), searchFrom: Int = 0
    ) throws(HTTPError) -> (head: HTTPRequestHead, length: Int)? {
        var start = bytes.startIndex
        while bytes.endIndex - start >= 2, bytes[start] == ASCII.cr, bytes[start + 1] == ASCII.lf {
            start += 2
            if start - bytes.startIndex > 64 { throw .badRequest("the request starts with too many blank lines") }
        }
        if start < bytes.endIndex, bytes[start] == ASCII.cr, start + 1 == bytes.endIndex { return nil }
        let window = bytes[start..<min(bytes.endIndex, start + limits.maxHeadBytes)]
        // The request line is looked for only where it may end (its longest, then CRLF), and judged on those bytes
        // alone, so that the verdict is the same however the bytes arrive: all at once or a few at a time.
        let longestLine = limits.maxRequestLineBytes
        let lineWindow = window.prefix(longestLine + 2)
        guard let lineEnd = try findLineEnd(lineWindow, from: lineWindow.startIndex) else {
            try checkPartialRequestLine(lineWindow.prefix(longestLine))
            if lineWindow.count == longestLine + 2 || window.count == limits.maxHeadBytes {
                throw HTTPError(
                    .uriTooLong, code: .uriTooLong,
                    message: "the request line exceeds \(longestLine) bytes; shorten the URL")
            }
            return nil
        }
        let line = try RequestLine.parse(bytes[start..<lineEnd])
        let from = max(lineEnd, bytes.startIndex + searchFrom - 3)
        guard let headEnd = try findHeadEnd(window, from: from) else {
            if window.count >= limits.maxHeadBytes || bytes.endIndex - start > limits.maxHeadBytes {
                throw HTTPError(
                    .headersTooLarge, code: .headersTooLarge,
                    message: "the request head exceeds \(limits.maxHeadBytes) bytes; send fewer or smaller headers")
            }
            return nil
        }
        let fieldsStart = lineEnd + 2
        let fieldsEnd = max(fieldsStart, headEnd - 4)
        let fields = try HeaderFields.parse(bytes[fieldsStart..<fieldsEnd], limits: limits)
        let head = try HeaderSemantics.head(line: line, headers: fields, limits: limits)
        return (head, headEnd - bytes.startIndex)
    }

    /// The index of the CR of the first CRLF at or after `from`, or nil; a bare CR or LF is refused.
    static func findLineEnd(_ bytes: ArraySlice<UInt8>, from: Int) throws(HTTPError) -> Int? {
        var index = from
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == ASCII.lf { throw .badRequest("the request has a line ending in a bare LF; end lines in CRLF") }
            if byte == ASCII.cr {
                guard index + 1 < bytes.endIndex else { return nil }
                guard bytes[index + 1] == ASCII.lf else {
                    throw .badRequest("the request has a bare CR; end lines in CRLF")
                }
                return index
            }
            index += 1
        }
        return nil
    }

    /// The index just past the blank line (CRLFCRLF) ending the head, searching lines from `from`.
    private static func findHeadEnd(_ bytes: ArraySlice<UInt8>, from: Int) throws(HTTPError) -> Int? {
        // `from` may sit mid-line after a resumed search; back up to a line start we know.
        var index = from
        while index > bytes.startIndex, bytes[index - 1] != ASCII.lf { index -= 1 }
        while let end = try findLineEnd(bytes, from: index) {
            if end == index { return end + 2 }
            index = end + 2
        }
        return nil
    }

    /// Refuses an incomplete request line that can already be seen to be garbage (e.g. a TLS handshake).
    private static func checkPartialRequestLine(_ bytes: ArraySlice<UInt8>) throws(HTTPError) {
        for byte in bytes {
            if byte == ASCII.space { return }
            if !ASCII.isTokenChar(byte) {
                throw .badRequest("the request does not start with an HTTP method; is this plain HTTP/1.1?")
            }
        }
    }
}
