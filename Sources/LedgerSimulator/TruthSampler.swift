import LedgerCore
import LedgerSystem

/// Chooses the instants at which a user's truth is stated and reads the simulator's model there.
///
/// Instants: a weekly grid (offset per user), one margin before and after every instant where the state
/// changes (purchases, plan changes taking effect, expiries, lapses, refunds), and exactly on voluntary
/// expiries and first purchases (`expiresDate` is exclusive, `purchaseDate` inclusive). Any instant closer than
/// half a margin to another event of the user is dropped, and so is any instant whose device count is open.
struct TruthSampler: Sendable {
    let start: Instant
    let end: Instant
    let clock: SimulationClock

    init(config: SimulationConfig) {
        self.start = config.start
        self.end = config.end
        self.clock = config.clock
    }

    /// The samples of one user's timeline.
    func samples(of timeline: UserTimeline) -> [TruthSample] {
        let margin = clock.sampleMargin
        let step = clock.days(7)
        var candidates: [(at: Instant, exact: Instant?)] = []
        var offset = (timeline.userId &* 7919) % 997 * step / 997
        if offset < margin { offset += margin }
        var grid = start.adding(milliseconds: offset)
        while grid < end {
            candidates.append((grid, nil))
            grid = grid.adding(milliseconds: step)
        }
        guard let sub = timeline.subscription else { return read(candidates, timeline: timeline, boundaries: []) }
        var boundaries = sub.boundaries + timeline.notifications.map(\.signedDate)
        boundaries.sort()
        for instant in interestingInstants(of: sub) {
            candidates.append((instant.adding(milliseconds: -margin), nil))
            candidates.append((instant.adding(milliseconds: margin), nil))
        }
        for exact in exactInstants(of: sub) {
            candidates.append((exact.adding(milliseconds: -1), exact))
            candidates.append((exact, exact))
        }
        return read(candidates, timeline: timeline, boundaries: boundaries)
    }

    private func read(_ candidates: [(at: Instant, exact: Instant?)], timeline: UserTimeline, boundaries: [Instant])
        -> [TruthSample]
    {
        let margin = clock.sampleMargin
        let sorted = candidates.sorted { $0.at < $1.at }
        var samples: [TruthSample] = []
        for candidate in sorted where candidate.at >= start && candidate.at < end {
            if let last = samples.last, last.at == candidate.at { continue }
            let anchor = candidate.exact ?? candidate.at
            let near = boundaries.partitioningIndex { $0.milliseconds >= anchor.milliseconds - margin / 2 }
            var clear = true
            var i = near
            while i < boundaries.count, boundaries[i].milliseconds <= anchor.milliseconds + margin / 2 {
                if boundaries[i] != candidate.exact { clear = false }
                i += 1
            }
            guard clear, let sample = Self.sample(timeline.subscription, at: candidate.at) else { continue }
            samples.append(sample)
        }
        return samples
    }

    /// The truth of one subscription (or none) at an instant; nil when the device count is open.
    static func sample(_ sub: SubscriptionModel?, at instant: Instant) -> TruthSample? {
        guard let sub else { return TruthSample(at: instant, deviceLimit: 0, status: EntitlementStatus.none) }
        switch sub.reading(at: instant) {
        case .absent: return TruthSample(at: instant, deviceLimit: 0, status: EntitlementStatus.none)
        case .uncertain: return nil
        case .known(let reading):
            return TruthSample(
                at: instant, deviceLimit: reading.devices,
                status: reading.statuses.count == 1 ? reading.statuses[0] : nil)
        }
    }

    /// Where the state changes: purchases (not plain renewals), product changes, lapses and their ends,
    /// expiries not followed by a renewal, revocations and their reversals.
    private func interestingInstants(of sub: SubscriptionModel) -> [Instant] {
        var result: [Instant] = []
        for (index, txn) in sub.transactions.enumerated() {
            let previous = index > 0 ? sub.transactions[index - 1] : nil
            if txn.reason == "PURCHASE" || previous.map({ $0.product != txn.product }) == true {
                result.append(txn.purchase)
            }
            let renewed = index + 1 < sub.transactions.count && sub.transactions[index + 1].purchase == txn.expires
            if !renewed && !txn.isUpgraded { result.append(txn.expires) }
            if let revocation = txn.revocation { result.append(revocation.date) }
            if let window = txn.reversedRefund { result.append(window.until) }
        }
        for lapse in sub.lapses {
            if let grace = lapse.graceUntil { result.append(grace) }
            result.append(lapse.retryUntil)
        }
        return result
    }

    /// Boundaries whose reading is certain by the contract itself: the first purchase (inclusive) and the
    /// end of a period that simply expired (exclusive).
    private func exactInstants(of sub: SubscriptionModel) -> [Instant] {
        var result = [sub.originalPurchase]
        for (index, txn) in sub.transactions.enumerated() where !txn.isUpgraded && txn.revocation == nil {
            let next = index + 1 < sub.transactions.count ? sub.transactions[index + 1] : nil
            let lapsed = sub.lapses.contains { $0.from == txn.expires }
            if !lapsed && next.map({ $0.purchase > txn.expires }) ?? true { result.append(txn.expires) }
        }
        return result
    }
}
