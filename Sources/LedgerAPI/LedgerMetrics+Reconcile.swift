import LedgerHTTP
import LedgerJSON
import Synchronization

/// What `/healthz` and `/metrics` know of `serve --reconcile-every`.
final class ReconcileHealth: Sendable {
    struct State {
        var degradedAfterMilliseconds: Int64
        var lastSuccess: Int64?
        var failingSince: Int64?
        var lastError: String?
        var runs: [String: Counter] = [:]
        var errors: [String: Counter] = [:]
        var recovered: Counter
    }

    let state: Mutex<State>
    let registry: MetricsRegistry

    init(registry: MetricsRegistry, degradedAfterMilliseconds: Int64, startedAt: Int64) {
        self.registry = registry
        let recovered = registry.counter(
            "ledger_reconcile_recovered_total", help: "Facts the scheduled App Store API pull appended.")
        state = Mutex(
            State(
                degradedAfterMilliseconds: degradedAfterMilliseconds, failingSince: startedAt, recovered: recovered))
        registry.gauge(
            "ledger_reconcile_last_success_timestamp_seconds",
            help: "When the scheduled App Store API pull last appended everything it fetched (0: never)."
        ) { [weak self] in Double(self?.state.withLock { $0.lastSuccess } ?? 0) / 1000 }
    }

    func counter(
        _ table: WritableKeyPath<State, [String: Counter]>, _ name: String, _ help: String, _ label: String,
        _ value: String
    ) -> Counter {
        state.withLock { state in
            if let counter = state[keyPath: table][value] { return counter }
            let counter = registry.counter(name, help: help, labels: [label: value])
            state[keyPath: table][value] = counter
            return counter
        }
    }
}

extension LedgerMetrics {
    /// Turns on the scheduled pull's metrics (`ledger_reconcile_*`) and health: `/healthz` says `degraded` once
    /// no pull has succeeded for `degradedAfterMilliseconds` (counted from `startedAt` until the first success).
    public func enableReconcile(degradedAfterMilliseconds: Int64, startedAt: Int64) {
        reconcileHealth.withLock {
            $0 = ReconcileHealth(
                registry: registry, degradedAfterMilliseconds: degradedAfterMilliseconds, startedAt: startedAt)
        }
    }

    /// Counts a pull that appended everything it fetched (`appended` of them new).
    public func reconcileSucceeded(appended: Int, at milliseconds: Int64) {
        guard let health = reconcileHealth.withLock({ $0 }) else { return }
        health
            .counter(
                \.runs, "ledger_reconcile_runs_total", "Scheduled App Store API pulls by outcome.", "outcome", "ok"
            )
            .increment()
        health.state.withLock {
            $0.recovered.increment(by: UInt64(max(0, appended)))
            $0.lastSuccess = milliseconds
            $0.failingSince = nil
            $0.lastError = nil
        }
    }

    /// Counts a failed pull; `code` is Apple's `errorCode`, `http_<status>`, `transport`, `rejected`, ….
    public func reconcileFailed(code: String, message: String, at milliseconds: Int64) {
        guard let health = reconcileHealth.withLock({ $0 }) else { return }
        health
            .counter(
                \.runs, "ledger_reconcile_runs_total", "Scheduled App Store API pulls by outcome.", "outcome", "failed"
            )
            .increment()
        health
            .counter(\.errors, "ledger_reconcile_errors_total", "Failed scheduled pulls by error.", "code", code)
            .increment()
        health.state.withLock {
            if $0.failingSince == nil { $0.failingSince = milliseconds }
            $0.lastError = message
        }
    }

    /// The reconcile part of `/healthz`, and whether it makes the server `degraded`; nil without a schedule.
    public func reconcileHealthReport(now: Int64) -> (degraded: Bool, report: JSONValue)? {
        guard let health = reconcileHealth.withLock({ $0 }) else { return nil }
        return health.state.withLock { state in
            let degraded = state.failingSince.map { now - $0 > state.degradedAfterMilliseconds } ?? false
            var object: JSONObject = [
                "lastSuccess": state.lastSuccess.map { .integer($0) } ?? .null,
                "failingSince": state.failingSince.map { .integer($0) } ?? .null,
            ]
            if let error = state.lastError { object["lastError"] = .string(error) }
            return (degraded, .object(object))
        }
    }
}
