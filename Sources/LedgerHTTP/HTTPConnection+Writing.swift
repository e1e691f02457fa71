import LedgerSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A response on its way out of a connection, with what the access log needs once it is sent.
struct Output {
    var head: [UInt8] = []
    var body: [UInt8] = []
    var sent = 0
    /// The bytes of the server's send budget it holds (given back once sent or cut).
    var held = 0
    var after = HTTPConnection.After.close
    var status = 0
    var route: String?
    var bytesIn = 0
    /// Whether the request is recorded (access log, metrics) once the response is sent.
    var recorded = true
}

/// The response a worker made for a request, serialized, for the event loop to send.
struct Reply: Sendable {
    var head: [UInt8]
    var body: [UInt8]
    var held: Int
    /// The bytes the worker sent already.
    var sent = 0
    var keepAlive: Bool
    var status: Int
    var route: String?

    /// Runs the responder on a worker thread, reserves the body's bytes in the send budget (a response that would
    /// take it past its cap is replaced by 503), and serializes the head.
    static func make(core: ServerCore, request: HTTPRequest) -> Reply {
        var response = core.responder.respond(to: request)
        let includeBody = request.method != .head
        // The body's bytes count against the server's send budget while they are being sent.
        var held = includeBody ? response.body.count : 0
        if !core.reserveBuffered(held) {
            response = overBudget(route: response.route)
            held = 0
        }
        let keepAlive =
            request.keepAlive && !core.isDraining && !response.headers.containsToken("close", in: "Connection")
        return Reply(
            head: response.serializedHead(keepAlive: keepAlive, date: HTTPDate.now()),
            body: includeBody ? response.body : [], held: held, keepAlive: keepAlive, status: response.status.code,
            route: response.route)
    }

    /// The answer instead of a response that would take the server's send budget past its cap: 503 with
    /// `Retry-After`, and the connection closes.
    private static func overBudget(route: String?) -> HTTPResponse {
        var response = HTTPResponse.error(
            HTTPError(
                .serviceUnavailable, code: .unavailable,
                message: "the server holds as many response bytes as it may for slow clients; retry shortly"))
        response.headers.set("Retry-After", "1")
        response.headers.set("Connection", "close")
        response.route = route
        return response
    }
}

extension HTTPConnection {
    /// Sends a worker's reply, then serves the next request or closes.
    func send(_ reply: Reply, bytesIn: Int) {
        var output = Output(head: reply.head, body: reply.body)
        output.held = reply.held
        output.sent = reply.sent
        output.after = reply.keepAlive ? .next : .close
        output.status = reply.status
        output.route = reply.route
        output.bytesIn = bytesIn
        startWriting(output)
    }

    /// Sends a response made on the loop (a refusal from the head alone, an error), then does `after`.
    func respond(
        _ response: HTTPResponse, keepAlive: Bool, includeBody: Bool, after: After, bytesIn: Int, recorded: Bool = true
    ) {
        var output = Output(
            head: response.serializedHead(keepAlive: keepAlive, date: HTTPDate.now()),
            body: includeBody ? response.body : [])
        output.after = after
        output.status = response.status.code
        output.route = response.route
        output.bytesIn = bytesIn
        output.recorded = recorded
        startWriting(output)
    }

    /// Answers a request the server refused before routing, then closes the connection gracefully (lingering).
    func fail(_ error: HTTPError, bytesIn: Int) {
        var response = HTTPResponse.error(error)
        response.route = nil
        respond(response, keepAlive: false, includeBody: request?.method != .head, after: .linger, bytesIn: bytesIn)
    }

    /// Starts sending `output`, within the write timeout (a total deadline).
    private func startWriting(_ output: Output) {
        self.output = output
        stage = .writing
        setDeadline(SystemClock.monotonicMilliseconds() + core.configuration.timeouts.write.milliseconds)
        flush()
    }

    /// Sends what the socket takes now; watches it for room when it takes no more, finishes when all is sent.
    func flush() {
        let total = output.head.count + output.body.count
        while output.sent < total {
            let sent = output.head.withUnsafeBytes { head in
                output.body.withUnsafeBytes { body in Self.sendVector(fd, head, body, from: output.sent) }
            }
            if sent > 0 {
                output.sent += sent
                continue
            }
            let value = errno
            if sent < 0 && value == EINTR { continue }
            if sent < 0 && (value == EAGAIN || value == EWOULDBLOCK) {
                loop.watch(self, .writable)
                return
            }
            return cut()
        }
        finishWriting()
    }

    /// Cuts the response off (the client missed the deadline or went away): what the kernel still holds for it is
    /// dropped rather than left queued.
    func cut() {
        Socket.resetOnClose(fd)
        core.configuration.metrics?.responseCut()
        if output.recorded { record(bytesOut: 0) }
        loop.close(self)
    }

    private func finishWriting() {
        core.releaseBuffered(output.held)
        output.held = 0
        if output.recorded { record(bytesOut: output.sent) }
        let after = output.after
        output = Output()
        switch after {
        case .next:
            becomeIdle()
        case .close:
            loop.close(self)
        case .linger:
            _ = Glibc.shutdown(fd, Int32(SHUT_WR))
            stage = .lingering
            discarded = 0
            setDeadline(SystemClock.monotonicMilliseconds() + core.configuration.timeouts.lingeringClose.milliseconds)
            loop.watch(self, .readable)
        }
    }

    /// Sends from `offset` of head-then-body in one `sendmsg` (non-blocking); returns what it returned.
    static func sendVector(
        _ fd: Int32, _ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer, from offset: Int
    )
        -> Int
    {
        withUnsafeTemporaryAllocation(of: iovec.self, capacity: 2) { vectors in
            var count = 0
            if offset < head.count {
                vectors[count] = iovec(
                    iov_base: UnsafeMutableRawPointer(mutating: head.baseAddress! + offset),
                    iov_len: head.count - offset)
                count += 1
            }
            let bodyOffset = max(0, offset - head.count)
            if bodyOffset < body.count {
                vectors[count] = iovec(
                    iov_base: UnsafeMutableRawPointer(mutating: body.baseAddress! + bodyOffset),
                    iov_len: body.count - bodyOffset)
                count += 1
            }
            var message = msghdr()
            message.msg_iov = vectors.baseAddress
            message.msg_iovlen = count
            return sendmsg(fd, &message, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
    }

    private func record(bytesOut: Int) {
        let seconds = began == 0 ? 0 : Double(SystemClock.monotonicNanoseconds() - began) / 1e9
        core.configuration.metrics?.recordRequest(
            route: output.route, method: request?.method ?? HTTPMethod("-"), status: output.status, seconds: seconds)
        core.configuration.accessLog?.record(
            AccessLog.Entry(
                remote: peer, method: request?.method.rawValue, path: request?.path, route: output.route,
                status: output.status, bytesIn: output.bytesIn, bytesOut: bytesOut, milliseconds: seconds * 1000))
    }
}
