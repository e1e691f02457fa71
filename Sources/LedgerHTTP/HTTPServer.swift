import LedgerSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An HTTP/1.1 server on POSIX sockets.
///
/// Design: a connection costs memory, not a thread. One event-loop thread (``EventLoop``, Linux epoll) owns the
/// listening socket and every connection (non-blocking), reads and parses requests, enforces the deadlines, and writes
/// responses back as the sockets take them; a fixed pool of worker threads (``Configuration/workers``) runs the
/// handlers. Handlers are synchronous and may block (a webhook waits for the log's group commit, a feed request
/// long-polls), holding a worker, not the loop. Connections are capped by ``Configuration/maxConnections``: at the
/// cap the connection idle the longest is closed to make room, or, when none is idle, the new one is answered 503 and
/// closed. Several servers (the webhook's and the API's listeners) each have their own loop and workers.
///
/// Lifecycle: ``start(listener:)`` binds (or takes an ``HTTPListener`` bound earlier) and starts accepting; ``shutdown(graceful:)`` stops accepting, lets
/// in-flight requests finish (closing idle keep-alive connections at once and answering the rest with
/// `Connection: close`), flushes the access log and returns; ``run(listener:announce:)`` does both around
/// SIGTERM/SIGINT.
///
/// Wiring, in a few lines:
///
/// ```swift
/// let metrics = ServerMetrics()
/// var router = Router()
/// let reads = BearerAuth(token: readToken)
/// router.post("/webhooks/apple") { request in .json(.ok, try ingest(request.body)) }
/// router.get("/v1/users/{id}/entitlement", middlewares: [reads]) { request in … }
/// router.get("/metrics", metrics.handler)
/// let server = try HTTPServer(
///     configuration: .init(host: host, port: port, accessLog: AccessLog(fileDescriptor: 2), metrics: metrics),
///     responder: HTTPApplication(router: router))
/// try server.run()  // prints "listening on http://HOST:PORT"; returns after SIGTERM/SIGINT
/// ```
public final class HTTPServer: Sendable {
    private enum State: Sendable {
        case idle
        case running(loop: EventLoop, thread: pthread_t, port: UInt16)
        case stopped
    }

    let core: ServerCore
    /// Held for the whole of start and shutdown, so concurrent callers wait for the transition to finish.
    private let state = Mutex(State.idle)

    /// Creates a server that answers with `responder` (usually an ``HTTPApplication``).
    ///
    /// - Throws: ``LedgerSystem/SystemError`` when the wake-up pipe cannot be created (out of descriptors).
    public init(configuration: Configuration, responder: any HTTPResponder) throws(SystemError) {
        core = try ServerCore(configuration: configuration, responder: responder)
    }

    /// The configuration the server was created with.
    public var configuration: Configuration { core.configuration }

    /// The bound port while running, else nil.
    public var port: UInt16? {
        state.withLock { state in
            if case .running(_, _, let port) = state { return port }
            return nil
        }
    }

    /// The number of connections being served now.
    public var openConnections: Int { core.openConnections }

    /// Whether shutdown has begun; a long-polling handler may check it to return early.
    public var isShuttingDown: Bool { core.isDraining }

    /// Binds, listens and starts accepting connections.
    ///
    /// - Parameter bound: a socket bound already (``HTTPListener``), used instead of binding the configuration's
    ///   host and port; the server takes it over.
    /// - Returns: the bound port (the ephemeral one when the configuration's port is 0).
    /// - Throws: ``LedgerSystem/SystemError`` when the address cannot be bound (e.g. `addressInUse`), when the
    ///   server was already started, or when the listener was taken by another server.
    @discardableResult
    public func start(listener bound: HTTPListener? = nil) throws(SystemError) -> UInt16 {
        try state.withLock { (state) throws(SystemError) -> UInt16 in
            guard case .idle = state else {
                throw SystemError(
                    .other, call: "start", message: "the HTTP server was already started; create a new one")
            }
            signal(SIGPIPE, SIG_IGN)
            let configuration = core.configuration
            let listener: Int32
            let port: UInt16
            if let bound {
                guard let fd = bound.take() else {
                    throw SystemError(
                        .other, call: "start", message: "the listener was taken by another server; bind a new one")
                }
                (listener, port) = (fd, bound.port)
            } else {
                (listener, port) = try Socket.listen(
                    host: configuration.host, port: configuration.port, backlog: configuration.backlog)
            }
            do throws(SystemError) {
                let loop = try EventLoop(core: core, listener: listener)
                let thread = try startThread(detached: false) { loop.run() }
                state = .running(loop: loop, thread: thread, port: port)
                return port
            } catch {
                try? Syscall.closing(listener)
                throw error
            }
        }
    }

    /// Stops the server and returns when it has stopped.
    ///
    /// Graceful: stop accepting, close idle connections, let in-flight requests finish (up to the drain
    /// timeout, after which their connections are shut down), then flush the access log. Not graceful:
    /// shut every connection down at once. Calling it again, or before ``start(listener:)``, is harmless.
    public func shutdown(graceful: Bool = true) {
        state.withLock { state in
            guard case .running(let loop, let thread, _) = state else {
                state = .stopped
                return
            }
            beginShutdown()
            if graceful {
                waitForConnections(milliseconds: core.configuration.timeouts.drain.milliseconds)
            }
            if core.openConnections > 0 {
                loop.forceCloseAll()
                waitForConnections(milliseconds: 2000)
            }
            loop.stop()
            joinThread(thread)
            core.configuration.accessLog?.flush()
            state = .stopped
        }
    }

    /// Stops accepting and tells the handlers (``Configuration/onDrain``), once; ``shutdown(graceful:)`` then waits.
    /// Several servers begin together, so their drains overlap.
    func beginShutdown() {
        if core.beginDraining() { core.configuration.onDrain?() }
    }

    private func waitForConnections(milliseconds: Int) {
        let deadline = SystemClock.monotonicMilliseconds() + milliseconds
        while core.openConnections > 0 && SystemClock.monotonicMilliseconds() < deadline {
            usleep(2000)
        }
    }
}
