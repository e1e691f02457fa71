import LedgerCore
import LedgerJSON
import LedgerLog

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
        at: Instant = Instant(milliseconds: wallClockMillis()), progress: ((Int) -> Void)? = nil
    )
        throws(ServiceError) -> ProjectionSummary
    {
        let head = log.head
        var summary = ProjectionSummary(
            at: at, coveredSeq: head.seq, owners: 0, users: 0, subscriptions: 0, entitledSubscriptions: 0,
            devicesUnderContract: 0, byStatus: [:], byPeriod: [:])
        try forEachComponentStreaming(progress: progress) { entries throws(ServiceError) in
            let owned = fold.subscriptions(in: entries, at: at, knownAt: nil)
            var owners = Set<String>()
            var users = Set<Int64>()
            for item in owned {
                let state = item.state
                owners.insert(
                    item.owner.userId.map { "u:\($0)" } ?? item.owner.appAccountToken
                        ?? "o:\(state.originalTransactionId)")
                if let user = item.owner.userId { users.insert(user) }
                summary.subscriptions += 1
                summary.byStatus[state.status.rawValue, default: 0] += 1
                if state.status.isEntitled {
                    summary.entitledSubscriptions += 1
                    summary.devicesUnderContract += state.devices
                    summary.byPeriod[state.period ?? "unknown", default: 0] += 1
                }
            }
            summary.owners += owners.count
            summary.users += users.count
        }
        if log.isWriter {
            do {
                _ = try log.writeDerived(
                    Self.projectionFile, summary.json.serializedBytes(), coveredSeq: head.seq, headHash: head.hash)
            } catch {
                throw ServiceError(error)
            }
        }
        return summary
    }
}
