import LedgerCore
import LedgerTesting
import Testing

/// A value a check expects, or no expectation.
enum Expected<Value: Sendable & Equatable>: Sendable {
    case unchecked
    case absent
    case equals(Value)

    func matches(_ actual: Value?) -> Bool {
        switch self {
        case .unchecked: return true
        case .absent: return actual == nil
        case .equals(let value): return actual == value
        }
    }
}

/// What a query should answer at one instant.
struct Check: Sendable {
    var at: Instant
    var knownAt: Instant? = nil
    /// Overrides the lifecycle's query.
    var query: SubjectQuery? = nil
    var status: EntitlementStatus
    var deviceLimit: Int
    /// The subscription the per-subscription expectations look at (default: the first one).
    var subscription: String? = nil
    var product: String? = nil
    var productKnown: Bool? = nil
    var pending: Expected<String> = .unchecked
    var expiresAt: Expected<Instant> = .unchecked
    var since: Expected<Instant> = .unchecked
    var grace: Expected<Instant> = .unchecked
    var autoRenew: Expected<Bool> = .unchecked
    var userId: Expected<Int64> = .unchecked
    var subscriptions: Int? = nil
}

/// One subscription story: the entries the ledger holds and what it must answer.
struct Lifecycle: Sendable, CustomTestStringConvertible {
    let name: String
    let query: SubjectQuery
    let entries: [LedgerEntry]
    let checks: [Check]

    var testDescription: String { name }

    /// Verifies every check against a fold of `entries` (by default the lifecycle's own).
    func verify(_ fold: EntitlementFold, entries: [LedgerEntry]? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        for check in checks {
            let state = fold.state(
                of: check.query ?? query, entries: entries ?? self.entries, at: check.at, knownAt: check.knownAt)
            let label = Comment(rawValue: "\(name) at \(check.at) knownAt \(check.knownAt.map(\.description) ?? "all")")
            #expect(state.status == check.status, label, sourceLocation: sourceLocation)
            #expect(state.deviceLimit == check.deviceLimit, label, sourceLocation: sourceLocation)
            #expect(state.entitled == (check.deviceLimit > 0), label, sourceLocation: sourceLocation)
            #expect(check.userId.matches(state.userId), label, sourceLocation: sourceLocation)
            if let count = check.subscriptions {
                #expect(state.subscriptions.count == count, label, sourceLocation: sourceLocation)
            }
            guard check.status != .none else {
                #expect(state.subscriptions.isEmpty, label, sourceLocation: sourceLocation)
                continue
            }
            let subscription = state.subscriptions.first {
                check.subscription == nil || $0.originalTransactionId == check.subscription
            }
            guard let subscription else {
                Issue.record("\(label): no subscription \(check.subscription ?? "")", sourceLocation: sourceLocation)
                continue
            }
            if let product = check.product {
                #expect(subscription.productId == product, label, sourceLocation: sourceLocation)
            }
            if let known = check.productKnown {
                #expect(subscription.productKnown == known, label, sourceLocation: sourceLocation)
            }
            #expect(check.pending.matches(subscription.pendingProductId), label, sourceLocation: sourceLocation)
            #expect(check.expiresAt.matches(subscription.expiresAt), label, sourceLocation: sourceLocation)
            #expect(check.since.matches(subscription.since), label, sourceLocation: sourceLocation)
            #expect(check.grace.matches(subscription.gracePeriodExpiresAt), label, sourceLocation: sourceLocation)
            #expect(check.autoRenew.matches(subscription.autoRenew), label, sourceLocation: sourceLocation)
        }
    }
}

/// Instants and products the lifecycles use.
enum Fixture {
    static let p = RecordBuilders.instant("2026-01-10T12:00:00Z")  // first purchase
    static let e1 = RecordBuilders.instant("2026-02-10T12:00:00Z")  // end of the first monthly period
    static let e2 = RecordBuilders.instant("2026-03-10T12:00:00Z")
    static let e3 = RecordBuilders.instant("2026-04-10T12:00:00Z")

    static func monthly(_ devices: Int) -> String { Catalog.vislaProductId(period: .monthly, devices: devices) }
    static func semiannual(_ devices: Int) -> String { Catalog.vislaProductId(period: .semiannual, devices: devices) }
    static func annual(_ devices: Int) -> String { Catalog.vislaProductId(period: .annual, devices: devices) }

    static func days(_ count: Int) -> Int64 { Int64(count) * 86_400_000 }

    static func log(_ records: [LedgerRecord]) -> [LedgerEntry] {
        var log = EntryLog()
        log.append(records)
        return log.entries
    }
}

extension Instant {
    /// This instant plus whole days.
    func plus(days: Int) -> Instant { adding(milliseconds: Fixture.days(days)) }
    /// This instant plus milliseconds (negative: earlier).
    func plus(ms: Int64) -> Instant { adding(milliseconds: ms) }
}
