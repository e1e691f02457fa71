import LedgerCore

/// One delivery of a notification to the webhook.
public struct Delivery: Sendable, Hashable {
    /// Index into ``Simulation/notifications``.
    public var notification: Int
    /// When it arrives.
    public var deliveredAt: Instant
    /// 1 for the first delivery, 2 and 3 for Apple's retries.
    public var attempt: Int

    /// Creates a delivery.
    public init(notification: Int, deliveredAt: Instant, attempt: Int) {
        self.notification = notification
        self.deliveredAt = deliveredAt
        self.attempt = attempt
    }
}
