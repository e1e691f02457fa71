import LedgerSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What the accept loop and the connection threads share: configuration, responder, the wake-up pipe,
/// and the table of open connections (so a forced shutdown can reach them).
final class ServerCore: Sendable {
    let configuration: HTTPServer.Configuration
    let responder: any HTTPResponder
    /// Readable once shutdown begins; never drained, so every poll on it wakes.
    let wakeRead: Int32
    private let wakeWrite: Int32
    private let draining = Atomic<Bool>(false)
    private let connections = Mutex<(nextID: Int, open: [Int: OpenConnection])>((0, [:]))
    private let rejecting = Atomic<Int>(0)
    /// Response bytes being sent now, across connections (bounded by ``HTTPServer/Configuration/maxBufferedBytes``).
    private let buffered = Atomic<Int>(0)

    init(configuration: HTTPServer.Configuration, responder: any HTTPResponder) throws(SystemError) {
        self.configuration = configuration
        self.responder = responder
        var fds: [Int32] = [0, 0]
        try Syscall.retrying("pipe") { pipe(&fds) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        wakeRead = fds[0]
        wakeWrite = fds[1]
    }

    deinit {
        try? Syscall.closing(wakeRead)
        try? Syscall.closing(wakeWrite)
    }

    /// Whether shutdown has begun: stop accepting, close idle connections, answer with `Connection: close`.
    var isDraining: Bool { draining.load(ordering: .acquiring) }

    /// Begins shutdown and wakes every thread waiting on the wake-up pipe; true the first time.
    @discardableResult
    func beginDraining() -> Bool {
        guard !draining.exchange(true, ordering: .acquiringAndReleasing) else { return false }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        return true
    }

    /// Reserves `count` bytes of the send budget; false when other responses hold so much that this one would
    /// exceed it (a response alone always gets its bytes). Give them back with ``releaseBuffered(_:)``.
    func reserveBuffered(_ count: Int) -> Bool {
        let total = buffered.wrappingAdd(count, ordering: .acquiringAndReleasing).newValue
        if total <= configuration.maxBufferedBytes || total == count { return true }
        buffered.wrappingSubtract(count, ordering: .acquiringAndReleasing)
        return false
    }

    /// Gives back bytes reserved with ``reserveBuffered(_:)``.
    func releaseBuffered(_ count: Int) {
        buffered.wrappingSubtract(count, ordering: .acquiringAndReleasing)
    }

    /// The number of connections being served.
    var openConnections: Int { connections.withLock { $0.open.count } }

    /// Registers a new connection; nil when the connection cap is reached and no connection is idle.
    ///
    /// At the cap, the connection idle the longest (waiting for its next request, or for its first) is closed to
    /// make room: a server may close an idle keep-alive connection at any time, and clients that hold connections
    /// open without using them must not keep others (Apple's deliveries among them) out. The evicted connection's
    /// thread sees its socket shut down and ends; until it has, the open count may exceed the cap by the
    /// evictions in flight.
    func register(_ fd: Int32) -> Int? {
        connections.withLock { state in
            let live = state.open.values.lazy.filter { !$0.evicted }.count
            if live >= configuration.maxConnections {
                guard
                    let (id, oldest) = state.open.filter({ !$0.value.evicted && $0.value.idleSince != nil })
                        .min(by: { $0.value.idleSince! < $1.value.idleSince! })
                else { return nil }
                _ = Glibc.shutdown(oldest.fd, Int32(SHUT_RDWR))
                state.open[id]?.evicted = true
                configuration.metrics?.connectionEvicted()
            }
            state.nextID += 1
            state.open[state.nextID] = OpenConnection(fd: fd, idleSince: Clock.monotonicNanoseconds())
            return state.nextID
        }
    }

    /// Notes that connection `id` waits for a request (idle) or has begun reading one; false when it was evicted
    /// (its socket is shut down: it must end).
    @discardableResult
    func setIdle(_ id: Int, _ idle: Bool) -> Bool {
        connections.withLock { state in
            guard let connection = state.open[id], !connection.evicted else { return false }
            state.open[id]?.idleSince = idle ? Clock.monotonicNanoseconds() : nil
            return true
        }
    }

    /// Forgets a connection and closes its descriptor (under the lock, so a forced shutdown never
    /// touches a descriptor number that was closed and reused).
    func unregisterAndClose(_ id: Int) {
        connections.withLock { state in
            if let connection = state.open.removeValue(forKey: id) { try? Syscall.closing(connection.fd) }
        }
    }

    /// Shuts down both directions of every open connection, so blocked reads and writes return.
    func forceCloseAll() {
        connections.withLock { state in
            for connection in state.open.values { _ = Glibc.shutdown(connection.fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Answers a connection over the cap with 503 and closes it, lingering briefly (on its own thread, at
    /// most 64 at once) so the client reads the answer instead of a reset.
    func reject(_ fd: Int32, peer: String) {
        configuration.metrics?.connectionAccepted(false)
        let error = HTTPError(
            .serviceUnavailable, code: .unavailable,
            message: "the \(configuration.name.map { $0 + " " } ?? "")server is at its connection cap "
                + "(\(configuration.maxConnections)); retry shortly")
        var response = HTTPResponse.error(error)
        response.headers.set("Retry-After", "1")
        let bytes = response.serialized(keepAlive: false, includeBody: true, date: Clock.httpDateNow())
        configuration.accessLog?.record(
            AccessLog.Entry(
                remote: peer, method: nil, path: nil, route: nil, status: 503, bytesIn: 0, bytesOut: bytes.count,
                milliseconds: 0))
        guard rejecting.wrappingAdd(1, ordering: .relaxed).newValue <= 64 else {
            rejecting.wrappingSubtract(1, ordering: .relaxed)
            try? Socket.sendAll(fd, bytes, deadline: Clock.monotonicMilliseconds() + 100)
            try? Syscall.closing(fd)
            return
        }
        let linger = configuration.timeouts.lingeringClose.milliseconds
        do {
            try Threads.spawn(detached: true) { [self] in
                try? Socket.sendAll(fd, bytes, deadline: Clock.monotonicMilliseconds() + 1000)
                Self.lingeringClose(fd, milliseconds: linger)
                rejecting.wrappingSubtract(1, ordering: .relaxed)
            }
        } catch {
            rejecting.wrappingSubtract(1, ordering: .relaxed)
            try? Syscall.closing(fd)
        }
    }

    /// Closes our sending side, reads and discards what the client still sends (up to `milliseconds`
    /// and 4 MiB), then closes: the client sees our response rather than a connection reset.
    static func lingeringClose(_ fd: Int32, milliseconds: Int) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
        let deadline = Clock.monotonicMilliseconds() + milliseconds
        var discarded = 0
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 1)
        defer { scratch.deallocate() }
        while discarded < 4 << 20 {
            let remaining = deadline - Clock.monotonicMilliseconds()
            guard remaining > 0, (try? Socket.waitReadable(fd, timeoutMilliseconds: remaining)) == .readable,
                let count = try? Socket.receive(fd, into: scratch), count > 0
            else { break }
            discarded += count
        }
        try? Syscall.closing(fd)
    }
}

/// An open connection as the server's table holds it.
private struct OpenConnection {
    let fd: Int32
    /// Since when it has been waiting for a request (monotonic nanoseconds); nil while it serves one.
    var idleSince: UInt64?
    /// Closed to make room for a new connection; its thread is ending.
    var evicted = false
}
