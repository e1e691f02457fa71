import LedgerSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A server's event loop: one thread owns the listening socket and every connection (non-blocking sockets in one
/// level-triggered epoll set), reads and parses requests, hands complete ones to the server's ``WorkerPool``, and
/// writes the responses back as the sockets take them. Deadlines are swept on the same thread.
///
/// Workers hand their replies back through a queue and a notification pipe; a forced shutdown or a stop arrives
/// the same way. Only the loop thread touches the connections.
final class EventLoop: @unchecked Sendable {
    // Sendable: `replies` is under its mutex and the flags are atomics; everything else is touched only by the loop
    // thread (after `init`).
    let core: ServerCore
    /// The loop's receive buffer, shared by its connections (one reads at a time).
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
    let epoll: Epoll
    let listener: Int32
    private let workers: WorkerPool
    /// The pool of ``HTTPServer/Configuration/lane``, if any.
    private let laneWorkers: WorkerPool?
    private let notifyRead: Int32
    private let notifyWrite: Int32
    private let replies = Mutex<[(id: UInt64, reply: Reply)]>([])
    private let forcing = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    var connections: [UInt64: HTTPConnection] = [:]
    /// Sockets of connections closed while a worker had their request: shut down, closed when the reply is back.
    private var abandoned: [UInt64: Int32] = [:]
    var nextID: UInt64 = Tag.firstConnection
    var listening = true
    /// While accepting fails for want of descriptors: when to try again (monotonic ms).
    var acceptPausedUntil: Int?
    /// The earliest deadline of any connection, as far as the loop knows (monotonic ms).
    private var earliest = Int.max
    /// Connections refused at the cap that still linger (at most 64).
    var rejecting = 0

    private enum Tag {
        static let listener: UInt64 = 0
        static let wake: UInt64 = 1
        static let notify: UInt64 = 2
        static let firstConnection: UInt64 = 3
    }

    /// Creates the loop for `core` on the listening socket `listener`, which it takes over (non-blocking).
    init(core: ServerCore, listener: Int32) throws(SystemError) {
        self.core = core
        self.listener = listener
        workers = WorkerPool(limit: core.configuration.workers, priority: core.configuration.priority)
        laneWorkers = core.configuration.lane.map { WorkerPool(limit: $0.workers, priority: $0.priority) }
        epoll = try Epoll()
        var fds: [Int32] = [0, 0]
        try Syscall.retrying("pipe") { pipe(&fds) }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        notifyRead = fds[0]
        notifyWrite = fds[1]
        _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)
        // A failure here runs deinit, which closes the pipe.
        try epoll.add(listener, events: .readable, tag: Tag.listener)
        try epoll.add(core.wakeRead, events: .readable, tag: Tag.wake)
        try epoll.add(notifyRead, events: .readable, tag: Tag.notify)
    }

    deinit {
        scratch.deallocate()
        try? Syscall.closing(notifyRead)
        try? Syscall.closing(notifyWrite)
    }

    // MARK: - From other threads

    /// Closes every connection now, whatever it is doing (a forced shutdown); the loop keeps running.
    func forceCloseAll() {
        forcing.store(true, ordering: .releasing)
        notify()
    }

    /// Closes everything and ends ``run()``; the worker threads end once their jobs are done.
    func stop() {
        stopping.store(true, ordering: .releasing)
        notify()
    }

    private func notify() {
        var byte: UInt8 = 1
        _ = write(notifyWrite, &byte, 1)
    }

    /// A worker's reply for connection `id` (which may have been closed meanwhile).
    private func deliver(_ reply: Reply, to id: UInt64) {
        let first = replies.withLock { queue in
            queue.append((id, reply))
            return queue.count == 1
        }
        if first { notify() }
    }

    // MARK: - The loop

    /// Serves until ``stop()``; closes the listening socket and every connection before it returns.
    func run() {
        core.configuration.priority.apply()
        defer { closeEverything() }
        while !stopping.load(ordering: .acquiring) {
            let now = SystemClock.monotonicMilliseconds()
            var wake = earliest == .max ? 1000 : max(0, earliest - now)
            if let until = acceptPausedUntil { wake = min(wake, max(0, until - now)) }
            let count = (try? epoll.wait(timeoutMilliseconds: min(wake, 1000))) ?? 0
            var accepting = false
            for index in 0..<count {
                let (tag, events) = epoll.event(index)
                switch tag {
                case Tag.listener: accepting = true
                case Tag.wake: beginDraining()
                case Tag.notify: takeNotifications()
                default: handle(tag, events)
                }
            }
            // New connections last: the requests that arrived on open ones are read before any is closed to make room.
            if accepting { acceptAll() }
            let later = SystemClock.monotonicMilliseconds()
            if let until = acceptPausedUntil, later >= until { resumeAccepting() }
            if later >= earliest { sweep(now: later) }
        }
    }

    private func handle(_ tag: UInt64, _ events: Epoll.Events) {
        guard let connection = connections[tag] else { return }
        switch connection.stage {
        case .writing: connection.flush()
        case .idle, .head, .body, .lingering: connection.readable()
        case .working: unwatch(connection)
        }
    }

    private func takeNotifications() {
        var drained = [UInt8](repeating: 0, count: 64)
        while read(notifyRead, &drained, drained.count) == drained.count {}
        if forcing.exchange(false, ordering: .acquiringAndReleasing) {
            for connection in Array(connections.values) { close(connection) }
        }
        let ready = replies.withLock { queue in
            defer { queue.removeAll(keepingCapacity: true) }
            return queue
        }
        for (id, reply) in ready {
            guard let connection = connections[id], connection.stage == .working else {
                core.releaseBuffered(reply.held)
                if let fd = abandoned.removeValue(forKey: id) { try? Syscall.closing(fd) }
                continue
            }
            connection.send(reply, bytesIn: connection.output.bytesIn)
        }
    }

    /// Times out every connection whose deadline passed, and finds the next deadline.
    private func sweep(now: Int) {
        var expired: [HTTPConnection] = []
        earliest = .max
        for connection in connections.values where connection.stage != .working {
            if connection.deadline <= now {
                expired.append(connection)
            } else {
                earliest = min(earliest, connection.deadline)
            }
        }
        for connection in expired where connections[connection.id] === connection { connection.timedOut() }
    }

    /// Shutdown began: stop accepting and close the connections waiting for a request; those in the middle of one
    /// finish it (answered with `Connection: close`).
    private func beginDraining() {
        try? epoll.remove(core.wakeRead)
        closeListener()
        for connection in Array(connections.values) where connection.stage == .idle { close(connection) }
    }

    private func closeListener() {
        guard listening else { return }
        listening = false
        acceptPausedUntil = nil
        try? Syscall.closing(listener)
    }

    private func closeEverything() {
        closeListener()
        for connection in Array(connections.values) { close(connection) }
        workers.stop()
        laneWorkers?.stop()
        let ready = replies.withLock { queue in
            defer { queue.removeAll() }
            return queue
        }
        for (_, reply) in ready { core.releaseBuffered(reply.held) }
    }

    // MARK: - For the connections

    /// Notes a connection's new deadline.
    func noteDeadline(_ milliseconds: Int) {
        earliest = min(earliest, milliseconds)
    }

    /// Watches the connection's socket for `events` (level-triggered; errors and hang-ups are always reported).
    func watch(_ connection: HTTPConnection, _ wanted: Epoll.Events) {
        guard connection.watching != wanted, connections[connection.id] === connection else { return }
        do {
            if connection.watching == nil {
                try epoll.add(connection.fd, events: wanted, tag: connection.id)
            } else {
                try epoll.modify(connection.fd, events: wanted, tag: connection.id)
            }
            connection.watching = wanted
        } catch {
            close(connection)
        }
    }

    /// Stops watching the connection's socket (while a worker has its request).
    func unwatch(_ connection: HTTPConnection) {
        guard connection.watching != nil else { return }
        try? epoll.remove(connection.fd)
        connection.watching = nil
    }

    /// Runs the request's handler on a worker; the reply comes back to the loop.
    func dispatch(_ connection: HTTPConnection, request: HTTPRequest, bytesIn: Int) {
        connection.output.bytesIn = bytesIn
        let (id, fd) = (connection.id, connection.fd)
        let core = self.core
        let lane = core.configuration.lane.flatMap { $0.matches(request.method, request.path) ? laneWorkers : nil }
        let accepted = (lane ?? workers).submit { [self] in
            var reply = Reply.make(core: core, request: request)
            // What the socket takes at once goes now, from the worker: the loop only sends the rest (and takes the
            // connection back), so a small response costs no hop through the loop before the client has it. The
            // loop never closes a working connection's socket (see close(_:)), so `fd` is still this connection's.
            let sent = reply.head.withUnsafeBytes { head in
                reply.body.withUnsafeBytes { body in HTTPConnection.sendVector(fd, head, body, from: 0) }
            }
            reply.sent = max(0, sent)
            deliver(reply, to: id)
        }
        if !accepted { close(connection) }
    }

    /// Forgets the connection and closes its socket (giving back the send budget its response held).
    func close(_ connection: HTTPConnection) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        core.releaseBuffered(connection.output.held)
        connection.output.held = 0
        // Uncounted before the close, so a client that sees the connection end sees the count without it.
        if connection.counted {
            core.countConnection(-1)
            core.configuration.metrics?.connectionClosed()
        } else {
            rejecting -= 1
        }
        if connection.stage == .working {
            // A worker may be sending on it: shut it down now, close it once the worker's reply is back, so the
            // descriptor's number is never reused under the worker.
            _ = Glibc.shutdown(connection.fd, Int32(SHUT_RDWR))
            abandoned[connection.id] = connection.fd
        } else {
            try? Syscall.closing(connection.fd)
        }
    }
}
