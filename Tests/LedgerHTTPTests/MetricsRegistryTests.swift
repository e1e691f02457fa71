import LedgerHTTP
import Testing

@Suite("Metrics registry")
struct MetricsRegistryTests {
    @Test func rendersCountersGaugesAndHistogramsInPrometheusText() {
        let registry = MetricsRegistry()
        registry.counter("ledger_appended_total", help: "Records appended.", labels: ["kind": "notification"])
            .increment(by: 3)
        registry.counter("ledger_appended_total", help: "Records appended.", labels: ["kind": "notification"])
            .increment()
        registry.gauge("ledger_head_seq", help: "Head sequence number.") { 17 }
        registry.counter("ledger_cache_hits_total", help: "Cache hits.") { 5 }
        let lag = registry.gauge("ledger_lag_seconds", help: "Lag.")
        lag.set(1.5)
        lag.add(-0.25)
        let histogram = registry.histogram("ledger_commit_seconds", help: "Commit time.", buckets: [0.01, 0.1])
        histogram.observe(0.005)
        histogram.observe(0.05)
        histogram.observe(3)
        #expect(
            registry.renderPrometheus() == """
                # HELP ledger_appended_total Records appended.
                # TYPE ledger_appended_total counter
                ledger_appended_total{kind="notification"} 4
                # HELP ledger_head_seq Head sequence number.
                # TYPE ledger_head_seq gauge
                ledger_head_seq 17
                # HELP ledger_cache_hits_total Cache hits.
                # TYPE ledger_cache_hits_total counter
                ledger_cache_hits_total 5
                # HELP ledger_lag_seconds Lag.
                # TYPE ledger_lag_seconds gauge
                ledger_lag_seconds 1.25
                # HELP ledger_commit_seconds Commit time.
                # TYPE ledger_commit_seconds histogram
                ledger_commit_seconds_bucket{le="0.01"} 1
                ledger_commit_seconds_bucket{le="0.1"} 2
                ledger_commit_seconds_bucket{le="+Inf"} 3
                ledger_commit_seconds_sum 3.055
                ledger_commit_seconds_count 3

                """)
    }

    @Test func labelValuesAreEscaped() {
        let registry = MetricsRegistry()
        registry.counter("x_total", help: "X.", labels: ["path": "a\"b\\c\nd"]).increment()
        #expect(registry.renderPrometheus().contains(#"x_total{path="a\"b\\c\nd"} 1"#))
    }

    @Test func metricsHandlerServesTheRegistry() throws {
        let metrics = ServerMetrics()
        metrics.registry.counter("ledger_webhooks_total", help: "Webhooks.").increment()
        var router = Router()
        router.get("/metrics", metrics.handler)
        let response = HTTPApplication(router: router).respond(to: try HTTPRequest(method: .get, target: "/metrics"))
        #expect(response.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(response.bodyText.contains("ledger_webhooks_total 1\n"))
    }
}
