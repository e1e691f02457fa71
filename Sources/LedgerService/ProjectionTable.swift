import LedgerCore

/// Every user's device limit and status at one instant, in a few flat arrays (about 20 bytes per user): the
/// in-memory projection that answers "how many devices may user N track now" without reading the log.
///
/// Each user's answer carries the instant until which it holds: the earliest instant after ``at`` at which any
/// record of the user's component could change the fold's answer (an expiry, the end of a grace period, a
/// refund, a purchase or renewal signed later, a correction's bounds). Between ``at`` and that instant, and as
/// long as nothing was appended after ``coveredSeq``, the table's answer is exactly ``Ledger/state(of:at:knownAt:)``'s.
/// After it, ``lookup(user:at:)`` answers nil and the caller folds that user's records again.
///
/// Users are the app's own (ids encoded in `appAccountToken`); orphan subscriptions and tokens outside the
/// scheme are answered by the fold.
public struct ProjectionTable: Sendable {
    /// One user's answer.
    public struct Entry: Hashable, Sendable {
        /// The user.
        public var userId: Int64
        /// Sum of the devices of the user's active and grace-period subscriptions.
        public var deviceLimit: Int
        /// The best status among the user's subscriptions (`none` when none has started).
        public var status: EntitlementStatus
        /// Until when (exclusive) the answer holds; nil when no known record changes it later.
        public var validUntil: Instant?

        /// Creates an entry.
        public init(userId: Int64, deviceLimit: Int, status: EntitlementStatus, validUntil: Instant?) {
            self.userId = userId
            self.deviceLimit = deviceLimit
            self.status = status
            self.validUntil = validUntil
        }
    }

    /// The instant the answers were computed at.
    public let at: Instant
    /// The log position they reflect: records after it are not in the table.
    public let coveredSeq: UInt64
    /// User ids, ascending.
    private let userIds: [Int64]
    /// Device limits, by position (saturating at 65,535).
    private let limits: [UInt16]
    /// ``EntitlementStatus/rank`` of each user's status, by position.
    private let ranks: [UInt8]
    /// ``Entry/validUntil`` in ms since the epoch by position (`Int64.max`: no later change known).
    private let validUntil: [Int64]

    /// Builds a table from entries in any order; a user listed twice keeps the last entry.
    public init(at: Instant, coveredSeq: UInt64, entries: [Entry]) {
        let sorted = entries.enumerated().sorted { ($0.element.userId, $0.offset) < ($1.element.userId, $1.offset) }
        var unique: [Entry] = []
        unique.reserveCapacity(sorted.count)
        for (_, entry) in sorted {
            if unique.last?.userId == entry.userId { unique.removeLast() }
            unique.append(entry)
        }
        self.at = at
        self.coveredSeq = coveredSeq
        userIds = unique.map(\.userId)
        limits = unique.map { UInt16(clamping: $0.deviceLimit) }
        ranks = unique.map { UInt8($0.status.rank) }
        validUntil = unique.map { $0.validUntil?.milliseconds ?? .max }
    }

    /// How many users the table holds.
    public var count: Int { userIds.count }

    /// The bytes the table's arrays hold (their capacities): what it costs to keep in memory.
    public var memoryBytes: Int {
        userIds.capacity * MemoryLayout<Int64>.stride + limits.capacity * MemoryLayout<UInt16>.stride
            + ranks.capacity * MemoryLayout<UInt8>.stride + validUntil.capacity * MemoryLayout<Int64>.stride
    }

    /// The user's answer at valid time `at`, or nil when the table cannot give it: `at` is before the table's
    /// instant or at or after the user's ``Entry/validUntil``. A user the table does not hold had no records
    /// by ``coveredSeq``: no devices, status `none`.
    public func lookup(user: Int64, at: Instant) -> Entry? {
        guard at >= self.at else { return nil }
        guard let position = position(of: user) else {
            return Entry(userId: user, deviceLimit: 0, status: .none, validUntil: nil)
        }
        guard at.milliseconds < validUntil[position] else { return nil }
        return entry(at: position)
    }

    /// The user's entry as computed at ``at``, whatever its validity.
    public func entry(user: Int64) -> Entry? {
        position(of: user).map(entry(at:))
    }

    private func entry(at position: Int) -> Entry {
        let until = validUntil[position]
        return Entry(
            userId: userIds[position], deviceLimit: Int(limits[position]),
            status: EntitlementStatus.allCases.first { $0.rank == Int(ranks[position]) } ?? .none,
            validUntil: until == .max ? nil : Instant(milliseconds: until))
    }

    private func position(of user: Int64) -> Int? {
        var low = 0
        var high = userIds.count
        while low < high {
            let middle = (low + high) / 2
            if userIds[middle] < user { low = middle + 1 } else { high = middle }
        }
        return low < userIds.count && userIds[low] == user ? low : nil
    }
}
