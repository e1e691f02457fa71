/// The HTTP server's own metrics: requests by route pattern, method and status, a latency histogram,
/// and connection counts. They live in a ``MetricsRegistry`` that others add their metrics to, and
/// ``renderPrometheus()`` serves all of them at `GET /metrics`.
public final class ServerMetrics: Sendable {
    /// The registry holding these and any other metrics.
    public let registry: MetricsRegistry
    private let prefix: String
    private let connectionsOpen: Gauge
    private let connectionsAccepted: Counter
    private let connectionsRejected: Counter
    private let connectionsEvicted: Counter
    private let responsesCut: Counter

    /// Creates the server metrics in `registry`, with names starting `prefix` (e.g. `ledger_http`).
    public init(registry: MetricsRegistry = MetricsRegistry(), prefix: String = "ledger_http") {
        self.registry = registry
        self.prefix = prefix
        connectionsOpen = registry.gauge("\(prefix)_connections_open", help: "Connections being served now.")
        connectionsAccepted = registry.counter(
            "\(prefix)_connections_accepted_total", help: "Connections accepted since start.")
        connectionsRejected = registry.counter(
            "\(prefix)_connections_rejected_total", help: "Connections refused with 503 at the connection cap.")
        connectionsEvicted = registry.counter(
            "\(prefix)_connections_evicted_total",
            help: "Idle connections closed at the connection cap to make room for a new one.")
        responsesCut = registry.counter(
            "\(prefix)_responses_cut_total",
            help: "Responses not sent whole: the client went away, or did not read them within the send deadline.")
    }

    /// Records one answered request. `route` is the matched pattern, or nil for requests no route served
    /// (recorded as `unmatched`, never the raw path, to keep the series bounded).
    public func recordRequest(route: String?, method: HTTPMethod, status: Int, seconds: Double) {
        let methodLabel = Self.knownMethods.contains(method) ? method.rawValue : "other"
        let routeLabel = route ?? "unmatched"
        registry.counter(
            "\(prefix)_requests_total", help: "Requests answered, by route pattern, method and status.",
            labels: ["route": routeLabel, "method": methodLabel, "status": String(status)]
        ).increment()
        registry.histogram(
            "\(prefix)_request_duration_seconds", help: "Time from the request's first byte to its response sent.",
            labels: ["route": routeLabel]
        ).observe(seconds)
    }

    /// Records a connection accepted (true) or refused at the cap (false).
    func connectionAccepted(_ accepted: Bool) {
        if accepted {
            connectionsAccepted.increment()
            connectionsOpen.add(1)
        } else {
            connectionsRejected.increment()
        }
    }

    /// Records a connection closed.
    func connectionClosed() { connectionsOpen.add(-1) }

    /// Records an idle connection closed at the cap to make room for a new one.
    func connectionEvicted() { connectionsEvicted.increment() }

    /// Records a response that was not sent whole (its connection was reset).
    func responseCut() { responsesCut.increment() }

    /// All metrics of the registry in the Prometheus text format.
    public func renderPrometheus() -> String { registry.renderPrometheus() }

    /// A `GET /metrics` handler serving ``renderPrometheus()``.
    public var handler: HTTPHandler {
        { _ in
            HTTPResponse(
                status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                body: Array(self.renderPrometheus().utf8))
        }
    }

    private static let knownMethods: Set<HTTPMethod> = [.get, .head, .post, .put, .delete, .patch, .options]
}
