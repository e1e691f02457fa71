import LedgerCore

extension Simulation {
    /// Deliveries that repeat a notification already delivered (Apple's retries).
    public var duplicateDeliveries: Int {
        deliveries.reduce(0) { $0 + ($1.attempt > 1 ? 1 : 0) }
    }

    /// Deliveries (first ones or Apple's repeats) that arrive after a later-signed notification about the
    /// same subscription: the out-of-order arrivals a ledger must fold correctly.
    public var outOfOrderDeliveries: Int {
        var latestSigned: [String: Instant] = [:]
        var count = 0
        for delivery in deliveries {
            let notification = notifications[delivery.notification]
            guard let key = notification.originalTransactionId else { continue }
            if let latest = latestSigned[key], notification.signedDate < latest {
                count += 1
            } else {
                latestSigned[key] = notification.signedDate
            }
        }
        return count
    }
}
