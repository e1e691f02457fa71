/// An operator's correction, honoured by the fold from its effective time. It never rewrites an
/// earlier record; it is a fact of its own, shown apart from Apple's.
public struct Correction: Hashable, Sendable {
    /// What the correction does.
    public enum Action: Hashable, Sendable {
        /// Grants a product's devices over `[from, until)`.
        case grant(productId: String, from: Instant, until: Instant)
        /// Ends, at `from`, every grant of the subject that covers `from`.
        case revoke(from: Instant)
    }

    /// What the correction does.
    public var action: Action
    /// Why, in the operator's words.
    public var reason: String
    /// Who made it.
    public var operatorName: String

    /// Creates a correction.
    public init(action: Action, reason: String, operatorName: String) {
        self.action = action
        self.reason = reason
        self.operatorName = operatorName
    }

    /// The instant from which the correction takes effect.
    public var effectiveAt: Instant {
        switch action {
        case .grant(_, let from, _): return from
        case .revoke(let from): return from
        }
    }
}

/// An operator's attachment of a subscription (usually an orphan without `appAccountToken`) to a
/// user or account. The record's ``Subject`` names both the subscription and its new owner.
public struct Link: Hashable, Sendable {
    /// Why, in the operator's words.
    public var reason: String
    /// Who made it.
    public var operatorName: String

    /// Creates a link.
    public init(reason: String, operatorName: String) {
        self.reason = reason
        self.operatorName = operatorName
    }
}
