/// A response's status line and headers, as the ``HTTPClient`` reads them.
struct ResponseHead {
    var status: HTTPStatus
    var headers: HTTPHeaders
    var keepAlive: Bool

    /// The index just past the blank line ending the head in `bytes`, or nil.
    static func end(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == ASCII.cr && bytes[index + 1] == ASCII.lf && bytes[index + 2] == ASCII.cr
            && bytes[index + 3] == ASCII.lf
        {
            return index + 4
        }
        return nil
    }

    /// Parses `HTTP/1.x CODE REASON` and the header lines (the slice ends with the blank line).
    static func parse(_ bytes: ArraySlice<UInt8>) throws -> ResponseHead {
        let lines = bytes.dropLast(4).split(separator: ASCII.cr, omittingEmptySubsequences: false).map { line in
            line.first == ASCII.lf ? line.dropFirst() : line
        }
        guard let statusLine = lines.first, statusLine.count >= 12,
            statusLine.starts(with: Array("HTTP/1.".utf8))
        else { throw malformed("the response does not start with an HTTP/1.x status line") }
        let line = Array(statusLine)
        let codeBytes = line[9..<12]
        guard codeBytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let code = Int(String(decoding: codeBytes, as: UTF8.self))
        else { throw malformed("the response's status code is not three digits") }
        let reason = line.count > 13 ? String(decoding: line[13...], as: UTF8.self) : ""
        var headers = HTTPHeaders()
        for fieldLine in lines.dropFirst() {
            do {
                let (name, value) = try HeaderFields.parseField(fieldLine)
                headers.add(name, value)
            } catch {
                throw malformed("the response has a malformed header line")
            }
        }
        let http10 = line[7] == UInt8(ascii: "0")
        let keepAlive =
            !headers.containsToken("close", in: "Connection")
            && (!http10 || headers.containsToken("keep-alive", in: "Connection"))
        return ResponseHead(status: HTTPStatus(code: code, reason: reason), headers: headers, keepAlive: keepAlive)
    }

    /// The error for a response the client cannot read.
    static func malformed(_ message: String) -> HTTPError {
        HTTPError(.badGateway, code: .malformedResponse, message: message)
    }
}
