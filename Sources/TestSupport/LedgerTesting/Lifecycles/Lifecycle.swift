import LedgerCore

/// A value a check expects, or no expectation.
public enum Expected<Value: Sendable & Equatable>: Sendable {
    case unchecked
    case absent
    case equals(Value)

    public func matches(_ actual: Value?) -> Bool {
        switch self {
        case .unchecked: return true
        case .absent: return actual == nil
        case .equals(let value): return actual == value
        }
    }
}

/// What a query should answer at one instant.
public struct Check: Sendable {
    public var at: Instant
    public var knownAt: Instant? = nil
    /// Overrides the lifecycle's query.
    public var query: SubjectQuery? = nil
    public var status: EntitlementStatus
    public var deviceLimit: Int
    /// The subscription the per-subscription expectations look at (default: the first one).
    public var subscription: String? = nil
    public var product: String? = nil
    public var productKnown: Bool? = nil
    public var pending: Expected<String> = .unchecked
    public var expiresAt: Expected<Instant> = .unchecked
    public var since: Expected<Instant> = .unchecked
    public var grace: Expected<Instant> = .unchecked
    public var autoRenew: Expected<Bool> = .unchecked
    public var userId: Expected<Int64> = .unchecked
    public var subscriptions: Int? = nil

    /// Creates a check.
    public init(
        at: Instant, knownAt: Instant? = nil, query: SubjectQuery? = nil, status: EntitlementStatus, deviceLimit: Int,
        subscription: String? = nil, product: String? = nil, productKnown: Bool? = nil,
        pending: Expected<String> = .unchecked, expiresAt: Expected<Instant> = .unchecked,
        since: Expected<Instant> = .unchecked, grace: Expected<Instant> = .unchecked,
        autoRenew: Expected<Bool> = .unchecked, userId: Expected<Int64> = .unchecked, subscriptions: Int? = nil
    ) {
        self.at = at
        self.knownAt = knownAt
        self.query = query
        self.status = status
        self.deviceLimit = deviceLimit
        self.subscription = subscription
        self.product = product
        self.productKnown = productKnown
        self.pending = pending
        self.expiresAt = expiresAt
        self.since = since
        self.grace = grace
        self.autoRenew = autoRenew
        self.userId = userId
        self.subscriptions = subscriptions
    }
}

/// One subscription story: the entries the ledger holds and what it must answer.
public struct Lifecycle: Sendable, CustomStringConvertible {
    public let name: String
    public let query: SubjectQuery
    public let entries: [LedgerEntry]
    public let checks: [Check]

    public var description: String { name }

    /// Creates a lifecycle.
    public init(name: String, query: SubjectQuery, entries: [LedgerEntry], checks: [Check]) {
        self.name = name
        self.query = query
        self.entries = entries
        self.checks = checks
    }

    /// The entries as Apple might deliver them: up to three records appended again later, under a higher
    /// sequence number (its retries), all shuffled.
    public func redelivered(using random: inout SeededRandom) -> [LedgerEntry] {
        var delivered = entries
        for copy in 0..<Int.random(in: 0...3, using: &random) {
            let original = entries.randomElement(using: &random)!
            delivered.append(
                LedgerEntry(
                    seq: original.seq + UInt64(1_000 * (copy + 1)),
                    recordedAt: original.recordedAt.plus(ms: Int64.random(in: 0...5_000, using: &random)),
                    record: original.record))
        }
        delivered.shuffle(using: &random)
        return delivered
    }
}

/// Instants and products the lifecycles use.
public enum Fixture {
    public static let p = RecordBuilders.instant("2026-01-10T12:00:00Z")  // first purchase
    public static let e1 = RecordBuilders.instant("2026-02-10T12:00:00Z")  // end of the first monthly period
    public static let e2 = RecordBuilders.instant("2026-03-10T12:00:00Z")
    public static let e3 = RecordBuilders.instant("2026-04-10T12:00:00Z")

    public static func monthly(_ devices: Int) -> String { Catalog.vislaProductId(period: .monthly, devices: devices) }
    public static func semiannual(_ devices: Int) -> String {
        Catalog.vislaProductId(period: .semiannual, devices: devices)
    }
    public static func annual(_ devices: Int) -> String { Catalog.vislaProductId(period: .annual, devices: devices) }

    public static func days(_ count: Int) -> Int64 { Int64(count) * 86_400_000 }

    public static func log(_ records: [LedgerRecord]) -> [LedgerEntry] {
        var log = EntryLog()
        log.append(records)
        return log.entries
    }
}

extension Instant {
    /// This instant plus whole days.
    public func plus(days: Int) -> Instant { adding(milliseconds: Fixture.days(days)) }
    /// This instant plus milliseconds (negative: earlier).
    public func plus(ms: Int64) -> Instant { adding(milliseconds: ms) }
}
