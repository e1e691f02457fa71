import LedgerCore

/// Something that will happen to a user's subscription, in the order of a discrete-event simulation.
struct LifecycleEvent: Sendable {
    /// What happens.
    enum Action: Sendable {
        case subscribe
        case periodEnd
        case disableAutoRenew
        case enableAutoRenew
        case upgrade
        case downgrade
        case cancelDowngrade
        case requestRefund
        case applyRefund
        case disableAfterRefund
        case reverseRefund(transaction: Int)
        case refundPast
        case requestDeclinedRefund(transaction: Int)
        case declineRefund(transaction: Int)
        case priceIncrease
        case acceptPriceIncrease
        case offerRedeemed
        case extendRenewal
        case familyRevoke
        case graceExpired
        case recover(inGrace: Bool)
        case retryExpired
        case resubscribe
    }

    /// When it happens.
    var time: Instant
    /// Tie-breaker: the order of scheduling.
    var sequence: Int
    /// The subscription state it was planned for; a later state (a renewal, an upgrade…) cancels it. Nil for
    /// events that happen whatever follows (a refund reversal, a declined refund).
    var generation: Int?
    /// What happens.
    var action: Action
}

/// A user's pending events, earliest first (ties in scheduling order).
struct EventQueue: Sendable {
    private var events: [LifecycleEvent] = []
    private var nextSequence = 0

    /// Schedules an event.
    mutating func schedule(_ action: LifecycleEvent.Action, at time: Instant, generation: Int?) {
        let event = LifecycleEvent(time: time, sequence: nextSequence, generation: generation, action: action)
        nextSequence += 1
        var low = 0
        var high = events.count
        while low < high {
            let mid = (low + high) / 2
            let other = events[mid]
            if (other.time, other.sequence) < (time, event.sequence) { low = mid + 1 } else { high = mid }
        }
        events.insert(event, at: low)
    }

    /// Removes and returns the earliest event.
    mutating func next() -> LifecycleEvent? {
        events.isEmpty ? nil : events.removeFirst()
    }
}
