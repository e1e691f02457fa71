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
    /// Who owned the subscription before, when the link moves it from another user or account (`ledger link
    /// --reassign`): its user id and token, no original transaction id. Nil for the link of an orphan.
    public var previousOwner: Optional<Subject>

    /// Creates a link.
    public init(reason: String, operatorName: String, previousOwner: Subject? = nil) {
        self.reason = reason
        self.operatorName = operatorName
        self.previousOwner = previousOwner
    }
}

/// An operator's void of one earlier record: a compensating fact that takes the voided record's facts out of
/// every answer from the void's recording time on. It never rewrites the voided record; as known before the
/// void, the voided record still counts. (Not named `Void`, which would shadow Swift's `Void` wherever
/// LedgerCore is imported.)
public struct Voiding: Hashable, Sendable {
    /// The seq of the record it voids.
    public var seq: UInt64
    /// Why, in the operator's words.
    public var reason: String
    /// Who made it.
    public var operatorName: String

    /// Creates a void of record `seq`.
    public init(seq: UInt64, reason: String, operatorName: String) {
        self.seq = seq
        self.reason = reason
        self.operatorName = operatorName
    }

    /// The idempotency key of the void of record `seq`: `void:<seq>`, so that a record is voided once.
    public static func idempotencyKey(voiding seq: UInt64) -> String { "void:\(seq)" }
}
