import LedgerCore
import LedgerSystem
import LedgerTesting

/// Realistic ledger records for the query, rebuild and memory rows: users living App Store subscriptions over
/// about a year, as Apple notifies them (`SUBSCRIBED`, `DID_RENEW`, auto-renew changes, billing failures with
/// grace and recovery, upgrades, downgrades, refunds, expiries, resubscriptions), built with the test suite's
/// ``SubscriptionScript`` so every record has the shape the ingest mapping produces.
///
/// Deterministic: a user's records depend only on the seed and the user id. Each subscription is played for
/// about 13 months from its purchase; monthly subscribers (92%) get 13–30 records, semiannual and annual ones a
/// handful; about 20 records per user on average.
struct Population {
    /// The first instant any subscription starts: 2025-01-01T00:00:00Z.
    static let start = Instant(milliseconds: 1_735_689_600_000)
    /// Subscriptions start within a year of ``start`` and are played for about 13 months: nothing happens after
    /// ``end``.
    static let end = Instant(milliseconds: start.milliseconds + 800 * day)
    static let day: Int64 = 86_400_000

    let seed: UInt64

    /// Every record of one user, in the order Apple signs them.
    func records(user: Int64) -> [LedgerRecord] {
        var random = SplitMix64(seed: seed ^ (UInt64(user) &* 0x9E37_79B9_7F4A_7C15))
        var records: [LedgerRecord] = []
        let first = Population.start.adding(milliseconds: Int64(random.next() % UInt64(365 * Population.day)))
        play(user: user, subscription: 0, from: first, random: &random, into: &records)
        // One user in five also holds a second subscription (another device pack, bought later).
        if random.next() % 100 < 20 {
            let later = first.adding(milliseconds: Int64(random.next() % UInt64(200 * Population.day)))
            play(user: user, subscription: 1, from: later, random: &random, into: &records)
        }
        return records
    }

    /// The original transaction id of a user's n-th subscription (unique; transaction ids count up from it).
    static func originalTransactionId(user: Int64, subscription: Int) -> String {
        String(2_000_000_000_000 + user * 1_000 + Int64(subscription) * 500)
    }

    private func play(
        user: Int64, subscription: Int, from start: Instant, random: inout SplitMix64,
        into records: inout [LedgerRecord]
    ) {
        var script = SubscriptionScript(
            originalTransactionId: Self.originalTransactionId(user: user, subscription: subscription), userId: user,
            environment: .production)
        let roll = random.next() % 100
        let period: Period = roll < 92 ? .monthly : roll < 95 ? .semiannual : .annual
        var devices = Self.devices(&random)
        records.append(script.subscribe(Catalog.vislaProductId(period: period, devices: devices), at: start))
        let horizon = start.adding(milliseconds: 396 * Population.day)
        func add(_ record: LedgerRecord) { records.append(record) }
        while let current = script.current, let ends = current.expiresDate, ends < horizon {
            let begun = current.purchaseDate
            let third = (ends.milliseconds - begun.milliseconds) / 3
            let early = begun.adding(milliseconds: third)
            let late = begun.adding(milliseconds: 2 * third)
            // Mid-period events, then what happens at the period's end.
            switch random.next() % 100 {
            case 0..<20:  // auto-renew off, and back on a few days later
                add(script.setAutoRenew(false, at: early))
                if random.next() % 4 > 0 { add(script.setAutoRenew(true, at: late)) }
            case 20..<27 where devices < 10:  // an upgrade to more devices, effective at once
                devices += 1 + Int(random.next() % UInt64(10 - devices))
                add(script.upgrade(to: Catalog.vislaProductId(period: period, devices: devices), at: early))
            case 27..<33 where devices > 1:  // a downgrade, effective at the next renewal
                devices -= 1
                add(script.downgrade(to: Catalog.vislaProductId(period: period, devices: devices), at: early))
            case 33..<45:  // a price increase notice, a consumption request, a renewal extension
                let kinds = [("PRICE_INCREASE", "ACCEPTED"), ("CONSUMPTION_REQUEST", nil), ("RENEWAL_EXTENDED", nil)]
                let (type, subtype) = kinds[Int(random.next() % 3)]
                add(
                    type == "RENEWAL_EXTENDED"
                        ? script.extendRenewal(byDays: 3, at: early) : script.other(type, subtype, at: early))
            case 45:  // a refund ends it
                add(script.refund(at: early))
                return
            default:
                break
            }
            guard let current = script.current, let ends = current.expiresDate else { return }
            if script.renewal?.autoRenewStatus == false {
                add(script.expire("VOLUNTARY", at: ends))
                guard random.next() % 2 == 0 else { return }
                let back = ends.adding(milliseconds: Int64(5 + random.next() % 40) * Population.day)
                add(script.resubscribe(current.productId, at: back))
            } else if random.next() % 100 < 8 {  // a failed renewal: grace, then recovery or the end
                add(script.failToRenew(graceUntil: ends.adding(milliseconds: 16 * Population.day), at: ends))
                guard random.next() % 10 < 8 else {
                    add(script.gracePeriodExpired(at: ends.adding(milliseconds: 16 * Population.day)))
                    add(script.expire("BILLING_RETRY", at: ends.adding(milliseconds: 60 * Population.day)))
                    return
                }
                add(script.recover(at: ends.adding(milliseconds: Int64(1 + random.next() % 10) * Population.day)))
            } else {
                add(script.renew())
            }
        }
    }

    /// Smaller plans are bought more often.
    private static func devices(_ random: inout SplitMix64) -> Int {
        let weights: [UInt64] = [30, 24, 14, 10, 7, 5, 4, 2, 2, 2]
        var pick = random.next() % weights.reduce(0, +)
        for (index, weight) in weights.enumerated() {
            if pick < weight { return index + 1 }
            pick -= weight
        }
        return 1
    }
}
