import LedgerCore
import LedgerTesting
import Testing

extension Lifecycle {
    /// Verifies every check against a fold of `entries` (by default the lifecycle's own).
    func verify(
        _ fold: EntitlementFold, entries: [LedgerEntry]? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
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

extension Lifecycle: CustomTestStringConvertible {
    public var testDescription: String { name }
}
