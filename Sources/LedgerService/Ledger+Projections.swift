import LedgerCore
import LedgerJSON
import LedgerStore
import LedgerSystem

/// The projection of every owner's entitlement at one instant, derived from the log alone.
public struct ProjectionSummary: Sendable, Hashable {
    /// When the states hold.
    public var at: Instant
    /// The log position it covers.
    public var coveredSeq: UInt64
    /// Owners (users, accounts, orphan subscriptions) with at least one subscription.
    public var owners: Int
    /// Of those, Visla users (the app's token scheme).
    public var users: Int
    /// Subscriptions started by `at`.
    public var subscriptions: Int
    /// Subscriptions active or in billing grace.
    public var entitledSubscriptions: Int
    /// Sum of device limits: devices under contract.
    public var devicesUnderContract: Int
    /// Subscriptions by status.
    public var byStatus: [String: Int]
    /// Entitled subscriptions by period name (unknown products under `unknown`).
    public var byPeriod: [String: Int]

    /// The summary as JSON.
    public var json: JSONValue {
        .object([
            "at": .string(at.iso8601), "coveredSeq": .integer(Int64(clamping: coveredSeq)), "owners": .int(owners),
            "users": .int(users), "subscriptions": .int(subscriptions),
            "entitledSubscriptions": .int(entitledSubscriptions), "devicesUnderContract": .int(devicesUnderContract),
            "byStatus": .object(JSONObject(byStatus.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
            "byPeriod": .object(JSONObject(byPeriod.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
        ])
    }
}

extension Ledger {
    /// The derived file holding the last projection summary.
    static let projectionFile = "projection.json"

    /// Re-derives every owner's state at `at` from the log, and keeps the summary as a derived file
    /// (checked against the head on read, so a stale or damaged one is never used).
    @discardableResult
    public func rebuildProjections(
        at: Instant = Instant(milliseconds: SystemClock.wallMilliseconds()), progress: ((Int) -> Void)? = nil
    )
        throws(ServiceError) -> ProjectionSummary
    {
        let head = log.head
        let empty = ProjectionSummary(
            at: at, coveredSeq: head.seq, owners: 0, users: 0, subscriptions: 0, entitledSubscriptions: 0,
            devicesUnderContract: 0, byStatus: [:], byPeriod: [:])
        // Both cores: each thread folds its share of the components into its own counts, with one fold (the log's
        // catalog versions read once).
        let fold = self.fold
        let partials = try foldComponents(progress: progress, into: SummaryTally()) {
            (tally: inout SummaryTally, records: FoldRecords) throws(ServiceError) in
            tally.add(component: fold.subscriptions(in: records, at: at, knownAt: nil))
        }
        var summary = empty
        for partial in partials { summary.merge(partial) }
        if log.opening.isWriter, let derived = log as? any DerivedFiles {
            do {
                _ = try derived.writeDerived(
                    Self.projectionFile, summary.json.serializedBytes(), coveredSeq: head.seq, headHash: head.hash)
            } catch {
                throw ServiceError(error)
            }
        }
        return summary
    }
}

/// What one thread counts of a rebuild's components: ``ProjectionSummary``'s figures, with its tallies by status and
/// by period as short lists (a handful of keys each, counted once per subscription: hashing a `String` key for each
/// cost more than the rest of the count).
struct SummaryTally {
    var owners = 0
    var users = 0
    var subscriptions = 0
    var entitledSubscriptions = 0
    var devicesUnderContract = 0
    var byStatus: [(key: String, count: Int)] = []
    var byPeriod: [(key: String, count: Int)] = []

    /// Counts the subscriptions of one component (owners are never shared between components).
    mutating func add(component owned: [OwnedSubscription]) {
        if owned.count == 1 {
            // Most components hold one subscription: one owner, no sets to build.
            owners += 1
            if owned[0].owner.userId != nil { users += 1 }
            count(owned[0].state)
            return
        }
        var owners = Set<String>()
        var users = Set<Int64>()
        for item in owned {
            let state = item.state
            owners.insert(
                item.owner.userId.map { "u:\($0)" } ?? item.owner.appAccountToken ?? "o:\(state.originalTransactionId)")
            if let user = item.owner.userId { users.insert(user) }
            count(state)
        }
        self.owners += owners.count
        self.users += users.count
    }

    /// Counts one subscription's state.
    private mutating func count(_ state: SubscriptionState) {
        subscriptions += 1
        Self.bump(&byStatus, state.status.rawValue)
        if state.status.isEntitled {
            entitledSubscriptions += 1
            devicesUnderContract += state.devices
            Self.bump(&byPeriod, state.period ?? "unknown")
        }
    }

    private static func bump(_ tally: inout [(key: String, count: Int)], _ key: String) {
        for index in tally.indices where tally[index].key == key {
            tally[index].count += 1
            return
        }
        tally.append((key, 1))
    }
}

extension ProjectionSummary {
    /// Adds a thread's counts.
    mutating func merge(_ tally: SummaryTally) {
        owners += tally.owners
        users += tally.users
        subscriptions += tally.subscriptions
        entitledSubscriptions += tally.entitledSubscriptions
        devicesUnderContract += tally.devicesUnderContract
        for (key, count) in tally.byStatus { byStatus[key, default: 0] += count }
        for (key, count) in tally.byPeriod { byPeriod[key, default: 0] += count }
    }
}
