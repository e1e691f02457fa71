import LedgerSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One client connection, owned by the server's ``EventLoop``: its non-blocking socket, the bytes read and not yet
/// parsed, the stage it is at, and that stage's deadline. It costs memory, not a thread.
///
/// A request moves through the stages: ``Stage/idle`` (waiting for its first byte: the head timeout, 10 s, on a new
/// connection, the idle timeout, 60 s, between keep-alive requests), ``Stage/head`` (10 s from its first byte to the
/// end of the head), ``Stage/body`` (10 s), ``Stage/working`` (a worker thread runs the handler; the socket is not
/// watched, so a pipelining client's next requests wait in the kernel), then ``Stage/writing`` (the response must be
/// taken whole within the write timeout, a total deadline: a client that reads a few bytes now and then is cut off all
/// the same) and back to idle, or ``Stage/lingering`` after an error (reading and discarding what the client still
/// sends, so it reads the error rather than a reset). Requests on one connection are answered one at a time, in order.
final class HTTPConnection {
    /// Where the connection is in serving a request.
    enum Stage {
        case idle, head, body, working, writing, lingering
    }

    /// What follows a response once it is sent.
    enum After {
        /// The next request (keep-alive).
        case next
        /// Close the connection.
        case close
        /// Lingering close: stop sending, discard what the client sends for a while, then close.
        case linger
    }

    unowned let loop: EventLoop
    /// Its tag in the loop's epoll set and table.
    let id: UInt64
    let fd: Int32
    let peer: String
    /// Whether it counts as open (a connection refused at the cap lingers uncounted).
    let counted: Bool
    var stage = Stage.idle
    /// When the current stage times out (monotonic ms); unused while working.
    var deadline = 0
    /// Since when it has waited for a request (monotonic ms), for eviction at the connection cap.
    var idleSince = 0
    /// What the socket is watched for now; nil when it is not in the epoll set.
    var watching: Epoll.Events?
    /// Whether a request has begun on this connection (until then, its first byte is awaited for the head timeout).
    var served = false
    /// The bytes read, framed into requests.
    var framer = RequestFramer()
    /// When the current request's first byte was seen (monotonic ns).
    var began: UInt64 = 0
    /// The current request, once its head is parsed.
    var request: HTTPRequest?
    var output = Output()
    /// Bytes discarded while lingering.
    var discarded = 0

    init(loop: EventLoop, id: UInt64, fd: Int32, peer: String, counted: Bool) {
        self.loop = loop
        self.id = id
        self.fd = fd
        self.peer = peer
        self.counted = counted
    }

    var core: ServerCore { loop.core }

    /// Starts waiting for a request, then serves any the buffer already holds (pipelined).
    func becomeIdle() {
        let timeouts = core.configuration.timeouts
        stage = .idle
        let now = SystemClock.monotonicMilliseconds()
        idleSince = now
        setDeadline(now + (served ? timeouts.idle : min(timeouts.idle, timeouts.head)).milliseconds)
        advance()
        if stage == .idle && core.isDraining {
            loop.close(self)
        } else if stage == .idle || stage == .head || stage == .body {
            loop.watch(self, .readable)
        }
    }

    /// Reads what the socket has, then moves the request on (the socket was reported readable).
    func readable() {
        let scratch = loop.scratch
        let count: Int
        do {
            count = try Syscall.retrying("recv") { recv(fd, scratch.baseAddress, scratch.count, Int32(MSG_DONTWAIT)) }
        } catch {
            if error.errno == EAGAIN || error.errno == EWOULDBLOCK { return }
            loop.close(self)
            return
        }
        if stage == .lingering {
            discarded += count
            if count == 0 || discarded >= 4 << 20 { loop.close(self) }
            return
        }
        // The client went away (before or in the middle of a request): nothing to answer.
        guard count > 0 else { return loop.close(self) }
        framer.append(UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
        advance()
    }

    /// The current stage's deadline passed.
    func timedOut() {
        let timeouts = core.configuration.timeouts
        switch stage {
        case .idle, .lingering:
            loop.close(self)
        case .head:
            let error = HTTPError(
                .requestTimeout, code: .requestTimeout,
                message: "the request head did not arrive within \(timeouts.head); send it promptly")
            fail(error, bytesIn: framer.currentBytesIn)
        case .body:
            let error = HTTPError(
                .requestTimeout, code: .requestTimeout,
                message: "the request body did not arrive within \(timeouts.body); send it promptly")
            fail(error, bytesIn: framer.currentBytesIn)
        case .writing:
            cut()
        case .working:
            break
        }
    }

    func setDeadline(_ milliseconds: Int) {
        deadline = milliseconds
        loop.noteDeadline(milliseconds)
    }

    /// Frames what the buffer holds as far as it goes: a request's head, then its body; a complete request goes to
    /// a worker.
    private func advance() {
        let configuration = core.configuration
        while true {
            switch stage {
            case .idle:
                if framer.bufferedByteCount == 0 { return }
                stage = .head
                served = true
                request = nil
                began = SystemClock.monotonicNanoseconds()
                setDeadline(Int(began / 1_000_000) + configuration.timeouts.head.milliseconds)
            case .head, .body:
                switch framer.next(limits: configuration.limits) {
                case .needMore:
                    return
                case .failed(let error, let bytesIn):
                    return fail(error, bytesIn: bytesIn)
                case .head(let head):
                    var request = head.request
                    request.remoteAddress = peer
                    self.request = request
                    if head.expectsContinue, let refusal = core.responder.respondBeforeBody(to: request) {
                        // The client waits for a go-ahead before it sends the body: refused from the head alone (an
                        // unknown route, a missing token), it never sends it, and the connection closes instead.
                        return respond(
                            refusal, keepAlive: false, includeBody: true, after: .close,
                            bytesIn: framer.currentBytesIn)
                    }
                    stage = .body
                    setDeadline(SystemClock.monotonicMilliseconds() + configuration.timeouts.body.milliseconds)
                    if head.expectsContinue, framer.awaitsBody, !sendContinue() { return loop.close(self) }
                case .request(var complete, let bytesIn):
                    complete.remoteAddress = peer
                    return dispatch(complete, bytesIn: bytesIn)
                }
            case .working, .writing, .lingering:
                return
            }
        }
    }

    /// Answers `Expect: 100-continue` when the body is not here yet; false when the socket would not take it.
    private func sendContinue() -> Bool {
        let bytes = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
        let sent = bytes.withUnsafeBytes {
            Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
        return sent == bytes.count
    }

    /// Hands the complete request to a worker; the socket is not watched until the response is back.
    private func dispatch(_ complete: HTTPRequest, bytesIn: Int) {
        request = complete
        stage = .working
        loop.unwatch(self)
        loop.dispatch(self, request: complete, bytesIn: bytesIn)
    }
}
