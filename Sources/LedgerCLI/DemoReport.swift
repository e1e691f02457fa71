import Dispatch
import LedgerCore
import LedgerService
import LedgerSimulator
import LedgerSystem

/// The demo's summary: active subscriptions, devices under contract, revenue by period.
enum DemoSummary {
    static func print(ledger: Ledger, config: SimulationConfig, at end: Instant) throws(ServiceError) {
        let summary = try ledger.rebuildProjections(at: end)
        Section.title("3. The ledger at \(end.iso8601)")
        Terminal.line(
            "   \(summary.entitledSubscriptions) active subscriptions (\(summary.byStatus["gracePeriod"] ?? 0) in billing grace) "
                + "for \(summary.users) users; \(summary.devicesUnderContract) devices under contract")
        let statuses = summary.byStatus.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(
            separator: ", ")
        Terminal.line("   subscriptions by status: \(statuses)")
        let sales = try ledger.report(.sales, period: ReportPeriod(from: config.start, to: config.end, unit: .month))
        var byPeriod: [String: (units: Int64, net: Int64)] = [:]
        for row in sales.rows {
            guard case .text(let product) = row[1], case .amount(let net) = row[12] else { continue }
            let units = row[4...6].reduce(Int64(0)) { total, cell in
                if case .integer(let value) = cell { return total + value }
                return total
            }
            let period = ledger.catalog.product(id: product)?.period.name ?? "unknown"
            byPeriod[period, default: (0, 0)].units += units
            byPeriod[period, default: (0, 0)].net += net
        }
        let total = byPeriod.values.reduce(Int64(0)) { $0 + $1.net }
        Terminal.line("   revenue over the year, net of refunds (customer prices, EUR):")
        for name in ["monthly", "semiannual", "annual", "unknown"] {
            guard let value = byPeriod[name] else { continue }
            Terminal.line(
                "     \(name.padding(to: 11)) \(String(value.units).padding(to: 7)) transactions  "
                    + Money.decimalString(milliunits: value.net))
        }
        Terminal.line("     total                             \(Money.decimalString(milliunits: total))")
    }
}

/// One user's timeline and state at three instants.
enum DemoTimeline {
    static func print(ledger: Ledger, simulation: Simulation, config: SimulationConfig) throws(ServiceError) {
        // The user with the richest history among the first hundred subscribers.
        var chosen: (user: Int64, entries: [LedgerEntry])?
        for user in simulation.truth.users.prefix(200) where !user.originalTransactionIds.isEmpty {
            let entries = try ledger.history(of: .user(user.userId))
            let kinds = Set(entries.map(\.kind)).count
            if chosen == nil || kinds > Set(chosen!.entries.map(\.kind)).count { chosen = (user.userId, entries) }
        }
        guard let chosen else { return }
        Section.title("4. User \(chosen.user): \(chosen.entries.count) records (ledger history --user \(chosen.user))")
        for entry in chosen.entries.prefix(24) {
            let record = entry.record
            var detail = [record.notification?.type, record.notification?.subtype].compactMap { $0 }.joined(
                separator: "/")
            if let product = record.transaction?.productId { detail += "  " + product }
            Terminal.line(
                "   \(String(entry.seq).padding(to: 6)) \(entry.effectiveAt.iso8601.padding(to: 25)) \(entry.kind.padding(to: 19)) \(detail)"
            )
        }
        if chosen.entries.count > 24 { Terminal.line("   … \(chosen.entries.count - 24) more") }
        let span = config.end.milliseconds - config.start.milliseconds
        for quarter in Int64(1)...3 {
            let at = Instant(milliseconds: config.start.milliseconds + span * quarter / 4)
            let state = try ledger.state(of: .user(chosen.user), at: at, knownAt: nil)
            let products = state.subscriptions.filter { $0.status.isEntitled }.map(\.productId).joined(separator: ", ")
            Terminal.line(
                "   at \(at.iso8601): \(state.status.rawValue), device limit \(state.deviceLimit)"
                    + (products.isEmpty ? "" : " (\(products))"))
        }
    }
}

/// Every user's (and orphan subscription's) sampled states against the ledger's answers.
enum DemoTruthCheck {
    struct Result {
        var users = 0
        var usersMatched = 0
        var orphans = 0
        var orphansMatched = 0
        var samples = 0
        var mismatches: [String] = []
    }

    static func run(ledger: Ledger, truth: Truth) -> Result {
        let checks: [(query: SubjectQuery, samples: [TruthSample], isUser: Bool)] =
            truth.users.map { (.user($0.userId), $0.samples, true) }
            + truth.orphans.map { (.originalTransaction($0.originalTransactionId), $0.samples, false) }
        let outcomes = ResultSlots<String>(count: checks.count)
        DispatchQueue.concurrentPerform(iterations: checks.count) { index in
            let check = checks[index]
            do {
                let entries = try ledger.entries(for: check.query)
                for sample in check.samples {
                    let state = ledger.fold.state(of: check.query, entries: entries, at: sample.at, knownAt: nil)
                    if state.deviceLimit != sample.deviceLimit || (sample.status.map { $0 != state.status } ?? false) {
                        outcomes.set(
                            index,
                            "\(check.query) at \(sample.at.iso8601): ledger says \(state.status.rawValue)/\(state.deviceLimit), "
                                + "truth \(sample.status?.rawValue ?? "any")/\(sample.deviceLimit)")
                        return
                    }
                }
            } catch {
                outcomes.set(index, "\(check.query): \(error)")
            }
        }
        var result = Result()
        for (index, outcome) in outcomes.values().enumerated() {
            let check = checks[index]
            result.samples += check.samples.count
            if check.isUser { result.users += 1 } else { result.orphans += 1 }
            if let mismatch = outcome {
                result.mismatches.append(mismatch)
            } else if check.isUser {
                result.usersMatched += 1
            } else {
                result.orphansMatched += 1
            }
        }
        return result
    }
}
