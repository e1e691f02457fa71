import LedgerCore
import LedgerSystem

/// Windows when the ledger's webhook is down, and Apple's answer to them: a notification whose delivery
/// fails is retried 1, 12, 24, 48 and 72 hours after it was first sent, so after an outage notifications
/// arrive at their own next retry, out of their signing order.
struct WebhookOutages: Sendable {
    /// The outages, `[start, end)`, in time order.
    let windows: [(start: Instant, end: Instant)]
    /// Apple's retry delays after the first attempt, as the clock runs them.
    let retries: [Int64]

    /// Outages drawn from the seed: about one every 45 days, each 1 to 8 hours long (compressed in the
    /// sandbox).
    init(config: SimulationConfig) {
        var rng = SimulationRandom(seed: config.seed, stream: UInt64.max - 1)
        let clock = config.clock
        var windows: [(Instant, Instant)] = []
        var cursor = config.start
        let end = config.end
        while true {
            cursor = cursor.adding(milliseconds: clock.days(20 + rng.unit() * 50))
            guard cursor < end else { break }
            let length = clock.scaled(rng.int(in: 3_600_000...8 * 3_600_000))
            windows.append((cursor, cursor.adding(milliseconds: length)))
            cursor = cursor.adding(milliseconds: length)
        }
        self.windows = windows
        self.retries = [1, 12, 24, 48, 72].map { clock.scaled(Int64($0) * 3_600_000, floor: 20) }
    }

    /// When a notification first sent at `attempt` is delivered: then, or at the first retry after the
    /// outage it hit (the last retry when every one of them falls inside).
    func delivery(firstAttempt attempt: Instant) -> Instant {
        var candidate = attempt
        for retry in [0] + retries {
            candidate = attempt.adding(milliseconds: retry)
            if !isDown(at: candidate) { return candidate }
        }
        return candidate
    }

    /// Whether the webhook is down at `instant`.
    func isDown(at instant: Instant) -> Bool {
        let index = windows.partitioningIndex { $0.end > instant }
        return index < windows.count && windows[index].start <= instant
    }
}
