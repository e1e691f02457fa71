import LedgerSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One client connection, served on its own thread: read a request, answer it, repeat while keep-alive.
///
/// The socket is blocking; every wait for input is a `poll` with the deadline of the current stage
/// (before a request's first byte: the head timeout, 10 s, on a new connection, the idle timeout, 60 s, between
/// keep-alive requests; then 10 s for the head and 10 s for the body), so a slow or silent client costs one
/// sleeping thread and is cut off on time: connections opened and left silent hold the connection cap for seconds,
/// not a minute. Each response must be sent whole within the write timeout (a total deadline, polled: a client that
/// reads a few bytes now and then is cut off all the same), and the bytes held for sending across connections are
/// capped (``HTTPServer/Configuration/maxBufferedBytes``). Between requests the thread also watches the server's wake-up pipe, so an idle
/// connection closes at once when shutdown begins, while a request already arriving is finished.
final class HTTPConnection {
    private enum ReadResult {
        case data, closed, timedOut, failed
    }

    private let core: ServerCore
    /// Its number in the server's table of open connections.
    private let id: Int
    private let fd: Int32
    private let peer: String
    private var buffer: [UInt8] = []
    private var start = 0
    /// Wire bytes of the current request's body consumed so far (the buffer may be compacted while reading it).
    private var bodyBytesIn = 0
    /// Whether a request has begun on this connection (until then, its first byte is awaited for the head timeout).
    private var served = false
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)

    init(core: ServerCore, id: Int, fd: Int32, peer: String) {
        self.core = core
        self.id = id
        self.fd = fd
        self.peer = peer
    }

    deinit { scratch.deallocate() }

    /// Serves requests until the connection should close. The caller closes the descriptor.
    func run() {
        try? Socket.setSendTimeout(fd, milliseconds: core.configuration.timeouts.write.milliseconds)
        while serveOne() {}
    }

    /// Serves one request; returns whether the connection stays open.
    private func serveOne() -> Bool {
        let timeouts = core.configuration.timeouts
        let limits = core.configuration.limits
        compact()
        if start == buffer.count {
            // Idle: at the connection cap, the server may close it to make room (ServerCore.register).
            guard core.setIdle(id, true) else { return false }
            let wait = served ? timeouts.idle : min(timeouts.idle, timeouts.head)
            switch try? Socket.waitReadable(fd, also: core.wakeRead, timeoutMilliseconds: wait.milliseconds) {
            case .readable: if read(deadline: .max) != .data { return false }
            default: return false
            }
        }
        guard core.setIdle(id, false) else { return false }
        served = true
        let began = Clock.monotonicNanoseconds()
        let headDeadline = Int(began / 1_000_000) + timeouts.head.milliseconds
        var searched = 0
        var parsed: (head: HTTPRequestHead, length: Int)?
        while parsed == nil {
            do {
                parsed = try HTTPRequestParser.parseHead(buffer[start...], limits: limits, searchFrom: searched)
            } catch {
                return fail(error, request: nil, bytesIn: buffer.count - start, began: began)
            }
            if parsed != nil { break }
            searched = buffer.count - start
            switch read(deadline: headDeadline) {
            case .data: continue
            case .timedOut:
                let error = HTTPError(
                    .requestTimeout, code: .requestTimeout,
                    message: "the request head did not arrive within \(timeouts.head); send it promptly")
                return fail(error, request: nil, bytesIn: buffer.count - start, began: began)
            case .closed, .failed: return false
            }
        }
        let (head, headLength) = parsed!
        var request = head.request
        request.remoteAddress = peer
        start += headLength
        bodyBytesIn = 0
        if head.expectsContinue, let refusal = core.responder.respondBeforeBody(to: request) {
            // The client waits for a go-ahead before it sends the body: refused from the head alone (an unknown
            // route, a missing token), it never sends it, and the connection closes instead of reading it.
            let sent = send(refusal, keepAlive: false, includeBody: true)
            record(
                request: request, route: refusal.route, status: refusal.status.code, bytesIn: headLength,
                bytesOut: sent ?? 0, began: began)
            return false
        }
        do {
            request.body = try readBody(head, deadline: Clock.monotonicMilliseconds() + timeouts.body.milliseconds)
        } catch let error as HTTPError {
            return fail(error, request: request, bytesIn: headLength + bodyBytesIn, began: began)
        } catch {
            return false
        }
        let bytesIn = headLength + bodyBytesIn
        var response = core.responder.respond(to: request)
        let includeBody = request.method != .head
        // The body's bytes count against the server's send budget while they are being sent.
        var held = includeBody ? response.body.count : 0
        if !core.reserveBuffered(held) {
            response = Self.overBudget(route: response.route)
            held = 0
        }
        defer { core.releaseBuffered(held) }
        let keepAlive =
            request.keepAlive && !core.isDraining && !response.headers.containsToken("close", in: "Connection")
        let sent = send(response, keepAlive: keepAlive, includeBody: includeBody)
        record(
            request: request, route: response.route, status: response.status.code, bytesIn: bytesIn,
            bytesOut: sent ?? 0, began: began)
        return sent != nil && keepAlive
    }

    /// Reads the body the head announced, answering `Expect: 100-continue` first (once the responder wants the body,
    /// see ``HTTPResponder/respondBeforeBody(to:)``).
    private func readBody(_ head: HTTPRequestHead, deadline: Int) throws -> [UInt8] {
        let timeout = HTTPError(
            .requestTimeout, code: .requestTimeout,
            message: "the request body did not arrive within \(core.configuration.timeouts.body); send it promptly")
        switch head.framing {
        case .none:
            return []
        case .length(let length):
            if head.expectsContinue && buffer.count - start < length { try sendContinue() }
            while buffer.count - start < length {
                switch read(deadline: deadline) {
                case .data: continue
                case .timedOut: throw timeout
                case .closed, .failed: throw SystemError(.connectionClosed, call: "recv", message: "client went away")
                }
            }
            defer {
                start += length
                bodyBytesIn = length
            }
            return Array(buffer[start..<(start + length)])
        case .chunked:
            if head.expectsContinue && buffer.count == start { try sendContinue() }
            var decoder = ChunkedBodyDecoder(limits: core.configuration.limits)
            while true {
                let used = try decoder.feed(buffer[start...])
                start += used
                bodyBytesIn += used
                if decoder.isComplete { return decoder.body }
                // Drop the wire bytes decoded so far: chunk-size lines with extensions may be a thousand times the
                // data they frame, and the buffer must stay bounded by the decoded body, not by the bytes sent.
                compact()
                switch read(deadline: deadline) {
                case .data: continue
                case .timedOut: throw timeout
                case .closed, .failed: throw SystemError(.connectionClosed, call: "recv", message: "client went away")
                }
            }
        }
    }

    private func sendContinue() throws {
        try Socket.sendAll(
            fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8),
            deadline: Clock.monotonicMilliseconds() + core.configuration.timeouts.write.milliseconds)
    }

    /// Reads what is available into the buffer, waiting until `deadline` (monotonic ms) at most.
    private func read(deadline: Int) -> ReadResult {
        let remaining = deadline == .max ? -1 : deadline - Clock.monotonicMilliseconds()
        if deadline != .max && remaining <= 0 { return .timedOut }
        guard let readiness = try? Socket.waitReadable(fd, timeoutMilliseconds: remaining) else { return .failed }
        if readiness == .timedOut { return .timedOut }
        guard let count = try? Socket.receive(fd, into: scratch) else { return .failed }
        if count == 0 { return .closed }
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
        return .data
    }

    /// Drops consumed bytes from the buffer when that is cheap or worthwhile.
    private func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
            start = 0
        } else if start > 32 * 1024 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
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

    /// Sends a response within the write timeout (a total deadline: a client reading too slowly is cut off);
    /// returns the bytes sent, or nil when the client went away or missed the deadline.
    private func send(_ response: HTTPResponse, keepAlive: Bool, includeBody: Bool) -> Int? {
        let deadline = Clock.monotonicMilliseconds() + core.configuration.timeouts.write.milliseconds
        let bodyCount = includeBody ? response.body.count : 0
        let head = response.serializedHead(keepAlive: keepAlive, date: Clock.httpDateNow())
        do {
            try Socket.sendAll(fd, head, flags: bodyCount > 0 ? Int32(MSG_MORE) : 0, deadline: deadline)
            if bodyCount > 0 { try Socket.sendAll(fd, response.body, deadline: deadline) }
            return head.count + bodyCount
        } catch {
            // Cut off (or gone): drop what the kernel still holds for it rather than leave it queued.
            Socket.resetOnClose(fd)
            core.configuration.metrics?.responseCut()
            return nil
        }
    }

    /// Answers a request the server refused before routing, then closes the connection gracefully.
    private func fail(_ error: HTTPError, request: HTTPRequest?, bytesIn: Int, began: UInt64) -> Bool {
        let sent = send(.error(error), keepAlive: false, includeBody: request?.method != .head)
        record(
            request: request, route: nil, status: error.status.code, bytesIn: bytesIn, bytesOut: sent ?? 0,
            began: began)
        ServerCore.lingeringClose(dup(fd), milliseconds: core.configuration.timeouts.lingeringClose.milliseconds)
        return false
    }

    private func record(request: HTTPRequest?, route: String?, status: Int, bytesIn: Int, bytesOut: Int, began: UInt64)
    {
        let seconds = Double(Clock.monotonicNanoseconds() - began) / 1e9
        core.configuration.metrics?.recordRequest(
            route: route, method: request?.method ?? HTTPMethod("-"), status: status, seconds: seconds)
        core.configuration.accessLog?.record(
            AccessLog.Entry(
                remote: peer, method: request?.method.rawValue, path: request?.path, route: route, status: status,
                bytesIn: bytesIn, bytesOut: bytesOut, milliseconds: seconds * 1000))
    }
}
