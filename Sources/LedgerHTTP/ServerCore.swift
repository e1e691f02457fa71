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
    private let connections = Mutex<(nextID: Int, open: [Int: Int32])>((0, [:]))
    private let rejecting = Atomic<Int>(0)

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

    /// Begins shutdown and wakes every thread waiting on the wake-up pipe.
    func beginDraining() {
        guard !draining.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// The number of connections being served.
    var openConnections: Int { connections.withLock { $0.open.count } }

    /// Registers a new connection; nil when the connection cap is reached.
    func register(_ fd: Int32) -> Int? {
        connections.withLock { state in
            guard state.open.count < configuration.maxConnections else { return nil }
            state.nextID += 1
            state.open[state.nextID] = fd
            return state.nextID
        }
    }

    /// Forgets a connection and closes its descriptor (under the lock, so a forced shutdown never
    /// touches a descriptor number that was closed and reused).
    func unregisterAndClose(_ id: Int) {
        connections.withLock { state in
            if let fd = state.open.removeValue(forKey: id) { try? Syscall.closing(fd) }
        }
    }

    /// Shuts down both directions of every open connection, so blocked reads and writes return.
    func forceCloseAll() {
        connections.withLock { state in
            for fd in state.open.values { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Answers a connection over the cap with 503 and closes it, lingering briefly (on its own thread, at
    /// most 64 at once) so the client reads the answer instead of a reset.
    func reject(_ fd: Int32, peer: String) {
        configuration.metrics?.connectionAccepted(false)
        let error = HTTPError(
            .serviceUnavailable, code: .unavailable,
            message: "the server is at its connection cap (\(configuration.maxConnections)); retry shortly")
        var response = HTTPResponse.error(error)
        response.headers.set("Retry-After", "1")
        let bytes = response.serialized(keepAlive: false, includeBody: true, date: Clock.httpDateNow())
        configuration.accessLog?.record(
            AccessLog.Entry(
                remote: peer, method: nil, path: nil, route: nil, status: 503, bytesIn: 0, bytesOut: bytes.count,
                milliseconds: 0))
        guard rejecting.wrappingAdd(1, ordering: .relaxed).newValue <= 64 else {
            rejecting.wrappingSubtract(1, ordering: .relaxed)
            try? Socket.sendAll(fd, bytes)
            try? Syscall.closing(fd)
            return
        }
        let linger = configuration.timeouts.lingeringClose.milliseconds
        do {
            try Threads.spawn(detached: true) { [self] in
                try? Socket.setSendTimeout(fd, milliseconds: 1000)
                try? Socket.sendAll(fd, bytes)
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
