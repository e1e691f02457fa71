import LedgerSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A minimal blocking HTTP/1.1 client for tests and the load tool: one connection, kept alive.
///
/// It sends `Content-Length` bodies, reads `Content-Length`, chunked and read-until-close responses,
/// skips interim 1xx responses, and reconnects when the server closed the connection. A request on a
/// reused connection that fails before any response byte arrives is retried once on a new connection
/// (the server closed an idle connection). Not thread-safe: use one client per thread.
public final class HTTPClient {
    /// The server's host.
    public let host: String
    /// The server's port.
    public let port: UInt16
    private let timeoutMilliseconds: Int
    private var fd: Int32 = -1
    private var buffer: [UInt8] = []
    private var requestsOnConnection = 0
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)

    /// A client for `host:port`; each send or receive fails after `timeout` without progress.
    public init(host: String = "127.0.0.1", port: UInt16, timeout: Duration = .seconds(30)) {
        self.host = host
        self.port = port
        self.timeoutMilliseconds = timeout.milliseconds
    }

    deinit {
        close()
        scratch.deallocate()
    }

    /// Whether a connection is open.
    public var isConnected: Bool { fd >= 0 }

    /// Sends a request and reads its response, adding `Host` and (for a body, or POST/PUT) `Content-Length`.
    ///
    /// - Throws: ``LedgerSystem/SystemError`` when the connection fails, ``HTTPError`` (`MALFORMED_RESPONSE`)
    ///   when the response cannot be read.
    public func send(
        _ method: HTTPMethod, _ target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []
    ) throws -> HTTPResponse {
        var head = "\(method) \(target) HTTP/1.1\r\n"
        if !headers.contains("Host") { head += "Host: \(host):\(port)\r\n" }
        for field in headers { head += "\(field.name): \(field.value)\r\n" }
        if !headers.contains("Content-Length") && (!body.isEmpty || method == .post || method == .put) {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        var bytes = Array(head.utf8)
        bytes.append(contentsOf: body)
        let reused = isConnected && requestsOnConnection > 0
        do {
            try sendRaw(bytes)
            return try readResponse(method: method)
        } catch let error as SystemError where reused && buffer.isEmpty {
            _ = error
            close()
            try sendRaw(bytes)
            return try readResponse(method: method)
        }
    }

    /// Sends raw bytes on the connection (connecting first if needed), e.g. a deliberately malformed request.
    public func sendRaw(_ bytes: [UInt8]) throws {
        if fd < 0 { try connect() }
        do {
            try Socket.sendAll(fd, bytes)
        } catch {
            close()
            throw error
        }
    }

    /// Reads one final response (skipping 1xx); `method` tells whether a body follows (not for HEAD).
    public func readResponse(method: HTTPMethod = .get) throws -> HTTPResponse {
        guard fd >= 0 else {
            throw SystemError(.connectionClosed, call: "recv", message: "the client is not connected")
        }
        requestsOnConnection += 1
        while true {
            let (response, keepAlive) = try readOne(method: method)
            if response.status.code >= 100 && response.status.code < 200 { continue }
            if !keepAlive { close() }
            return response
        }
    }

    /// Reads exactly `count` raw bytes (for raw-protocol tests, e.g. an interim `100 Continue`).
    public func readRaw(count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else {
                throw SystemError(.connectionClosed, call: "recv", message: "the server closed the connection")
            }
        }
        defer { buffer.removeSubrange(0..<count) }
        return Array(buffer[0..<count])
    }

    /// Reads until the server closes the connection; returns the bytes read (for raw-protocol tests).
    public func readUntilClosed() throws -> [UInt8] {
        while try fill() {}
        let bytes = buffer
        close()
        return bytes
    }

    /// Closes the connection; the next send opens a new one.
    public func close() {
        if fd >= 0 { try? Syscall.closing(fd) }
        fd = -1
        buffer.removeAll()
        requestsOnConnection = 0
    }

    private func connect() throws {
        fd = try Socket.connect(host: host, port: port)
        try Socket.setSendTimeout(fd, milliseconds: timeoutMilliseconds)
        try Socket.setReceiveTimeout(fd, milliseconds: timeoutMilliseconds)
    }

    /// Reads more bytes into the buffer; false at end of stream.
    private func fill() throws -> Bool {
        let count: Int
        do {
            count = try Socket.receive(fd, into: scratch)
        } catch {
            close()
            throw error
        }
        if count == 0 { return false }
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
        return true
    }

    /// Reads one response (interim or final) and whether the connection stays open after it.
    private func readOne(method: HTTPMethod) throws -> (HTTPResponse, Bool) {
        var headEnd: Int?
        while headEnd == nil {
            headEnd = ResponseHead.end(in: buffer)
            if headEnd != nil { break }
            if buffer.count > 64 * 1024 { throw ResponseHead.malformed("the response head exceeds 64 KiB") }
            guard try fill() else {
                if buffer.isEmpty {
                    throw SystemError(.connectionClosed, call: "recv", message: "the server closed the connection")
                }
                throw ResponseHead.malformed("the server closed the connection inside a response head")
            }
        }
        let head = try ResponseHead.parse(buffer[0..<headEnd!])
        buffer.removeSubrange(0..<headEnd!)
        var response = HTTPResponse(status: head.status, headers: head.headers)
        let keepAlive = head.keepAlive
        let bodiless = method == .head || head.status.code < 200 || head.status.code == 204 || head.status.code == 304
        if bodiless { return (response, keepAlive) }
        if HTTPHeaders.equalsIgnoringCase(head.headers["Transfer-Encoding"] ?? "", "chunked") {
            var decoder = ChunkedBodyDecoder(limits: HTTPLimits(maxHeadBytes: 64 * 1024, maxBodyBytes: 1 << 30))
            while true {
                let used = try decoder.feed(buffer[...])
                buffer.removeSubrange(0..<used)
                if decoder.isComplete { break }
                guard try fill() else { throw ResponseHead.malformed("the server closed the connection inside a body") }
            }
            response.body = decoder.body
            return (response, keepAlive)
        }
        if let lengthText = head.headers["Content-Length"] {
            guard let length = Int(lengthText), length >= 0 else {
                throw ResponseHead.malformed("the response's Content-Length is not a number")
            }
            while buffer.count < length {
                guard try fill() else { throw ResponseHead.malformed("the server closed the connection inside a body") }
            }
            response.body = Array(buffer[0..<length])
            buffer.removeSubrange(0..<length)
            return (response, keepAlive)
        }
        while try fill() {}
        response.body = buffer
        buffer.removeAll()
        return (response, false)
    }
}
