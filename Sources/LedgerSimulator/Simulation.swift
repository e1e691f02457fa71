import LedgerCore
import LedgerJSON

/// The outcome of a simulation: the notifications the App Store signed, the order in which they are
/// delivered (with Apple's retries and delays), and the truth the ledger must reproduce.
public struct Simulation: Sendable {
    /// The configuration that produced it.
    public let config: SimulationConfig
    /// Every notification once, in the order they were produced (user by user, `TEST` first).
    public let notifications: [SimulatedNotification]
    /// Every delivery, in delivery order: some notifications arrive late, out of order, or more than once.
    public let deliveries: [Delivery]
    /// What the ledger must answer.
    public let truth: Truth

    /// Creates a simulation outcome.
    public init(config: SimulationConfig, notifications: [SimulatedNotification], deliveries: [Delivery], truth: Truth)
    {
        self.config = config
        self.notifications = notifications
        self.deliveries = deliveries
        self.truth = truth
    }

    /// The request bodies in delivery order, one `{"signedPayload":"…"}` per line (JSON Lines). Each
    /// notification is signed once; its retries repeat the same bytes.
    public func jsonLines(signedWith signer: some PayloadSigner) throws(SimulationError) -> [UInt8] {
        let bodies = try signedBodies(with: signer)
        var out: [UInt8] = []
        out.reserveCapacity(deliveries.count * ((bodies.first?.count ?? 0) + 1))
        for delivery in deliveries {
            out.append(contentsOf: bodies[delivery.notification])
            out.append(0x0A)
        }
        return out
    }

    /// The request bodies in delivery order (what the webhook receives, retries included), for feeding an
    /// ingest pipeline without a file.
    public func deliveredBodies(signedWith signer: some PayloadSigner) throws(SimulationError) -> [[UInt8]] {
        let bodies = try signedBodies(with: signer)
        return deliveries.map { bodies[$0.notification] }
    }

    /// Each notification's request body, signed, indexed like ``notifications``.
    public func signedBodies(with signer: some PayloadSigner) throws(SimulationError) -> [[UInt8]] {
        try ParallelMap.map(notifications) { (notification) throws(SimulationError) in
            try notification.body(signedWith: signer)
        }
    }

    /// How many notifications of each `TYPE` or `TYPE/SUBTYPE`.
    public var countsByType: [String: Int] {
        var counts: [String: Int] = [:]
        for notification in notifications {
            counts[notification.subtype.map { "\(notification.type)/\($0)" } ?? notification.type, default: 0] += 1
        }
        return counts
    }
}
