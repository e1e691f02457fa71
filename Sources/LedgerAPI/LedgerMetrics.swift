import LedgerAppStore
import LedgerHTTP
import LedgerService
import Synchronization

/// The ledger's metrics beside the HTTP server's, in one registry rendered as Prometheus text:
/// ingest outcomes by status, append latency, head sequence, chain-cache hits.
public final class LedgerMetrics: Sendable {
    /// The HTTP server's metrics (requests by route and status, latencies, connections).
    public let http: ServerMetrics
    /// Webhook append latency (verification excluded), seconds.
    public let appendLatency: Histogram
    let registry: MetricsRegistry
    /// The scheduled App Store API pull's health, once ``enableReconcile(degradedAfterMilliseconds:startedAt:)``.
    let reconcileHealth = Mutex<ReconcileHealth?>(nil)
    private let outcomes = Mutex<[String: Counter]>([:])
    /// Why the last webhook append failed, until one succeeds again.
    private let writeFailure = Mutex<String?>(nil)

    /// Creates the metrics for a ledger and its verifier.
    public init(ledger: Ledger, verifier: SignedDataVerifier) {
        let http = ServerMetrics()
        self.http = http
        self.registry = http.registry
        self.appendLatency = registry.histogram(
            "ledger_append_seconds", help: "Time from verified notification to durable record.",
            buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1])
        let batches = registry.histogram(
            "ledger_commit_batch_records", help: "New records per group commit (one write and one fdatasync).",
            buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 1024, 4096])
        ledger.observeBatches { records in batches.observe(Double(records)) }
        registry.gauge("ledger_head_seq", help: "Sequence number of the last record in the log.") {
            Double(ledger.head.seq)
        }
        registry.counter("ledger_chain_cache_hits_total", help: "Verified-chain cache hits.") {
            Double(verifier.chainCacheStatistics?.hits ?? 0)
        }
        registry.counter("ledger_chain_cache_misses_total", help: "Verified-chain cache misses.") {
            Double(verifier.chainCacheStatistics?.misses ?? 0)
        }
    }

    /// Counts one webhook outcome (`appended`, `duplicate`, or a rejection status).
    public func ingest(outcome: String) {
        let counter = outcomes.withLock { counters in
            if let counter = counters[outcome] { return counter }
            let counter = registry.counter(
                "ledger_ingest_total", help: "Webhook notifications by outcome.", labels: ["outcome": outcome])
            counters[outcome] = counter
            return counter
        }
        counter.increment()
    }

    /// Notes whether a webhook append could write the log: the failure's message, or nil once one succeeded.
    public func logWrite(failed message: String?) {
        writeFailure.withLock { $0 = message }
    }

    /// Why the log could not be written at the last webhook append, while none has succeeded since (`/healthz`
    /// says `degraded`: the webhook answers 503 and Apple retries).
    public var logWriteFailure: String? { writeFailure.withLock { $0 } }

    /// Everything, as Prometheus text.
    public func renderPrometheus() -> String { registry.renderPrometheus() }
}
