import LedgerSystem

extension HTTPServer {
    /// How long the server waits for a client, at each stage.
    public struct Timeouts: Sendable, Equatable {
        /// From a request's first byte to the end of its head (408 when exceeded).
        public var head: Duration
        /// From the end of the head to the end of the body (408 when exceeded).
        public var body: Duration
        /// How long a keep-alive connection may sit idle between requests (closed silently).
        public var idle: Duration
        /// The total time to send one response, head and body: a client that has not taken all of it by then (one
        /// that reads slowly, or not at all) is cut off, so it holds a connection and the response's memory for this
        /// long at most, however it dribbles.
        public var write: Duration
        /// How long a graceful shutdown waits for in-flight requests before closing their connections.
        public var drain: Duration
        /// After an error response, how long the server keeps reading (and discarding) so the client
        /// receives the response instead of a reset.
        public var lingeringClose: Duration

        /// The ledger's defaults: 10 s head and body, 60 s idle, 10 s to send a response, 30 s drain, 2 s lingering close.
        public init(
            head: Duration = .seconds(10), body: Duration = .seconds(10), idle: Duration = .seconds(60),
            write: Duration = .seconds(10), drain: Duration = .seconds(30), lingeringClose: Duration = .seconds(2)
        ) {
            self.head = head
            self.body = body
            self.idle = idle
            self.write = write
            self.drain = drain
            self.lingeringClose = lingeringClose
        }
    }

    /// Everything the server needs to know before it starts.
    public struct Configuration: Sendable {
        /// The address to bind; `127.0.0.1` unless told otherwise (TLS belongs to a proxy in front).
        public var host: String
        /// The port to bind; 0 picks a free port, reported by ``HTTPServer/start(listener:)``.
        public var port: UInt16
        /// Request size limits.
        public var limits: HTTPLimits
        /// Client timeouts.
        public var timeouts: Timeouts
        /// What the server is for (`webhook`, `api`), named when a program runs several; nil for the only one.
        public var name: String?
        /// The most connections served at once. A further connection closes another to make room (one idle, or
        /// stalled in its request head or its response, for a second; else one idle for 20 ms), or gets 503 and is
        /// closed when none is.
        public var maxConnections: Int
        /// The most response bytes held for sending at once, across connections. A response that would go past it
        /// while others are being sent is replaced by 503 with `Retry-After` (clients that do not read cannot pile up
        /// memory); one response alone is always sent, whatever its size.
        public var maxBufferedBytes: Int
        /// How this server's event loop and worker threads compete for the cores (0 and the kernel's slice leave
        /// them as the process is). A server whose work may wait (the read API: `ledger serve --api-listen` runs
        /// its threads at niceness 19) yields the cores to one whose work must not (the webhook, whose threads
        /// ask for short slices), however many requests it has.
        public var priority: ThreadPriority
        /// The most worker threads that run this server's handlers at once (started as needed, then kept). A handler
        /// that blocks (a webhook waiting for the group commit, a long poll, a read queued at an ``AdmissionGate``)
        /// holds one; requests beyond wait for a free one. Each server has its own, so one server's work never waits
        /// behind another's.
        public var workers: Int
        /// Requests with workers of their own, on an address that serves work that may wait (heavy reads) beside
        /// work that must not (the webhook): those the lane matches run on its threads at its priority, the others
        /// on ``workers`` at ``priority``, as the event loop does. Nil: one pool for every request.
        public var lane: Lane?
        /// The listen backlog.
        public var backlog: Int32
        /// Where one JSON line per request goes, or nil for no access log.
        public var accessLog: AccessLog?
        /// The metrics the server records into, or nil.
        public var metrics: ServerMetrics?
        /// Called once when shutdown begins, before in-flight requests are waited for: a long-polling handler's
        /// cue to answer at once instead of holding the shutdown until its wait runs out.
        public var onDrain: (@Sendable () -> Void)?

        /// Creates a configuration with the ledger's defaults.
        public init(
            host: String = "127.0.0.1", port: UInt16 = 8080, limits: HTTPLimits = HTTPLimits(),
            timeouts: Timeouts = Timeouts(), maxConnections: Int = 256, backlog: Int32 = 1024,
            accessLog: AccessLog? = nil, metrics: ServerMetrics? = nil, name: String? = nil,
            maxBufferedBytes: Int = 64 << 20, priority: ThreadPriority = ThreadPriority(), workers: Int = 128
        ) {
            self.workers = workers
            self.priority = priority
            self.name = name
            self.maxBufferedBytes = maxBufferedBytes
            self.host = host
            self.port = port
            self.limits = limits
            self.timeouts = timeouts
            self.maxConnections = maxConnections
            self.backlog = backlog
            self.accessLog = accessLog
            self.metrics = metrics
        }
    }

    /// A share of a server's workers kept for the requests `matches` picks (see ``Configuration/lane``).
    public struct Lane: Sendable {
        /// The most threads the lane runs at once.
        public var workers: Int
        /// How the lane's threads compete for the cores.
        public var priority: ThreadPriority
        /// Whether a request, by its method and path, runs on the lane.
        public var matches: @Sendable (HTTPMethod, String) -> Bool

        /// Creates a lane of `workers` threads at `priority` for the requests `matches` picks.
        public init(
            workers: Int, priority: ThreadPriority, matches: @escaping @Sendable (HTTPMethod, String) -> Bool
        ) {
            self.workers = workers
            self.priority = priority
            self.matches = matches
        }
    }
}

extension Duration {
    /// The duration in whole milliseconds (rounded down, never negative).
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        return max(0, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
