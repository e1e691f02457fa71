extension HTTPResponse {
    /// The response as bytes on the wire: status line, headers (with `Content-Length`, `Date` and
    /// `Connection` set by the server), blank line, and the body unless `includeBody` is false (HEAD).
    func serialized(keepAlive: Bool, includeBody: Bool, date: String) -> [UInt8] {
        var bytes = serializedHead(keepAlive: keepAlive, date: date)
        if includeBody { bytes.append(contentsOf: body) }
        return bytes
    }

    /// The status line and header fields through the blank line, without the body (sent after it, uncopied).
    func serializedHead(keepAlive: Bool, date: String) -> [UInt8] {
        var head = "HTTP/1.1 \(status.code) \(status.reason)\r\n"
        for field in headers {
            if HTTPHeaders.equalsIgnoringCase(field.name, "Content-Length")
                || HTTPHeaders.equalsIgnoringCase(field.name, "Connection")
                || HTTPHeaders.equalsIgnoringCase(field.name, "Transfer-Encoding")
            {
                continue
            }
            head += "\(Self.clean(field.name)): \(Self.clean(field.value))\r\n"
        }
        if !headers.contains("Date") { head += "Date: \(date)\r\n" }
        head += "Content-Length: \(body.count)\r\n"
        head += keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n"
        return Array(head.utf8)
    }

    /// The text without CR and LF, so a handler's header value can never split the response.
    private static func clean(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == ASCII.cr || $0 == ASCII.lf }) else { return text }
        return String(text.unicodeScalars.filter { $0 != "\r" && $0 != "\n" }.map(Character.init))
    }
}
