import LedgerCore
import LedgerJSON

/// One answer a proposed catalog version would change (`ledger catalog set --dry-run`): a subscription's device
/// limit, status or expiry at one instant, as the log answers now and as it would with the version appended.
public struct CatalogChange: Hashable, Sendable {
    /// Which instant: `now`, or `from` (the proposed version's effective time).
    public var when: String
    /// The instant.
    public var at: Instant
    /// The owner: user id and account token, both nil for an orphan.
    public var owner: Subject
    /// The subscription.
    public var originalTransactionId: String
    /// Its state as the log answers now; nil when it had not started by then.
    public var before: SubscriptionState?
    /// Its state with the proposed version; nil when it would not have started by then.
    public var after: SubscriptionState?

    /// The change as JSON.
    public var json: JSONValue {
        var object: JSONObject = [
            "when": .string(when), "at": .string(at.iso8601), "originalTransactionId": .string(originalTransactionId),
        ]
        object.set("userId", owner.userId.map(JSONValue.integer))
        object.set("appAccountToken", owner.appAccountToken.map(JSONValue.string))
        object["before"] = before.map(Self.json(of:)) ?? .null
        object["after"] = after.map(Self.json(of:)) ?? .null
        return .object(object)
    }

    /// What a change compares of a state.
    static func json(of state: SubscriptionState) -> JSONValue {
        var object: JSONObject = [
            "productId": .string(state.productId), "devices": .int(state.devices),
            "status": .string(state.status.rawValue),
        ]
        object["expiresAt"] = state.expiresAt.map { .string($0.iso8601) } ?? .null
        return .object(object)
    }

    /// Whether two states differ in what a change compares: devices, status, expiry, product.
    static func differ(_ lhs: SubscriptionState?, _ rhs: SubscriptionState?) -> Bool {
        guard let lhs, let rhs else { return (lhs == nil) != (rhs == nil) }
        return lhs.devices != rhs.devices || lhs.status != rhs.status || lhs.expiresAt != rhs.expiresAt
            || lhs.productId != rhs.productId || lhs.since != rhs.since
    }
}

extension Ledger {
    /// The answers `version` would change were it appended now: every subscription whose devices, status, start
    /// or expiry differ, at `now` and at the version's effective time. Appends nothing.
    public func catalogChanges(of version: CatalogVersion, now: Instant) throws(ServiceError) -> [CatalogChange] {
        let history = catalogHistory
        let current = EntitlementFold(catalogs: history)
        // The proposed version is known after every record the log holds.
        let proposed = EntitlementFold(
            catalogs: history.adding(
                CatalogHistory.Entry(seq: log.head.seq + 1, recordedAt: .distantFuture, version: version)))
        let instants = [("now", now), ("from", version.effectiveFrom)]
        let partials = try foldComponents(into: [CatalogChange]()) {
            (changes: inout [CatalogChange], records: FoldRecords) throws(ServiceError) in
            for (when, at) in instants {
                let before = current.subscriptions(in: records, at: at, knownAt: nil)
                let after = proposed.subscriptions(in: records, at: at, knownAt: nil)
                var byId: [String: (owner: Subject, before: SubscriptionState?, after: SubscriptionState?)] = [:]
                for item in before { byId[item.state.originalTransactionId] = (item.owner, item.state, nil) }
                for item in after {
                    byId[item.state.originalTransactionId, default: (item.owner, nil, nil)].after = item.state
                }
                for (id, pair) in byId where CatalogChange.differ(pair.before, pair.after) {
                    changes.append(
                        CatalogChange(
                            when: when, at: at, owner: pair.owner, originalTransactionId: id, before: pair.before,
                            after: pair.after))
                }
            }
        }
        return partials.joined().sorted {
            if $0.when != $1.when { return $0.when == "now" }
            return $0.originalTransactionId < $1.originalTransactionId
        }
    }
}
