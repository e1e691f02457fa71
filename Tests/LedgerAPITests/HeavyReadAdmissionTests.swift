import LedgerAPI
import LedgerHTTP
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Feed pages and histories wait their turn at the API's admission gate; past its queue they are 503 with
/// `Retry-After`, and the cheap reads are not held up.
@Suite struct HeavyReadAdmissionTests {
    @Test func feedPagesAndHistoriesPastTheQueueGet503WithRetryAfter() async throws {
        let gate = AdmissionGate(concurrency: 1, queueLimit: 0)
        let harness = try APIHarness(heavyReads: gate)
        try harness.postRenewals(3)
        let release = Atomic<Bool>(false)
        // Another heavy read holds the only turn.
        let holder = Task.detached {
            try gate.run { while !release.load(ordering: .acquiring) { usleep(1_000) } }
        }
        while gate.load.running < 1 { usleep(1_000) }
        for target in ["/v1/events?after=0&limit=1000", "/v1/users/7/history"] {
            let refused = try harness.respond(.get, target)
            #expect(refused.status == .serviceUnavailable, "\(target)")
            #expect(refused.headers["Retry-After"] == "1")
            #expect(refused.bodyText.contains(#""status":"UNAVAILABLE""#))
            #expect(refused.bodyText.contains("too many heavy reads at once"), "\(refused.bodyText)")
        }
        // Cheap reads do not queue behind them.
        #expect(try harness.respond(.get, "/v1/digest").status == .ok)
        #expect(try harness.respond(.get, "/healthz").status == .ok)
        release.store(true, ordering: .releasing)
        try await holder.value
        let page = try harness.respond(.get, "/v1/events?after=0&limit=1000")
        #expect(page.status == .ok)
        #expect(page.bodyText.contains(#""next":3"#), "\(page.bodyText)")
    }
}
