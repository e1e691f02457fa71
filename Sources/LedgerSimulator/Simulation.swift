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
        var out: [UInt8] = []
        try forEachJSONLines(signedWith: signer) { piece in out += piece }
        return out
    }

    /// ``jsonLines(signedWith:)`` handed to `body` in pieces of about `deliveriesPerPiece` lines, signed piece by
    /// piece on every core: memory holds one piece and the bodies a later retry repeats, not the whole file.
    public func forEachJSONLines(
        signedWith signer: some PayloadSigner, deliveriesPerPiece: Int = 2048,
        _ body: ([UInt8]) throws(SimulationError) -> Void
    ) throws(SimulationError) {
        // The last delivery of each notification, after which its body is no longer kept.
        var lastDelivery = [Int](repeating: -1, count: notifications.count)
        for (position, delivery) in deliveries.enumerated() { lastDelivery[delivery.notification] = position }
        var kept: [Int: [UInt8]] = [:]
        var start = 0
        while start < deliveries.count {
            let range = start..<min(deliveries.count, start + max(1, deliveriesPerPiece))
            var missing: [Int] = []
            var seen = Set<Int>()
            for position in range where kept[deliveries[position].notification] == nil {
                if seen.insert(deliveries[position].notification).inserted {
                    missing.append(deliveries[position].notification)
                }
            }
            let signed = try ParallelMap.map(missing) { (index) throws(SimulationError) in
                try notifications[index].body(signedWith: signer)
            }
            for (index, bytes) in zip(missing, signed) { kept[index] = bytes }
            var piece: [UInt8] = []
            for position in range {
                let notification = deliveries[position].notification
                piece += kept[notification] ?? []
                piece.append(0x0A)
                if lastDelivery[notification] == position { kept[notification] = nil }
            }
            try body(piece)
            start = range.upperBound
        }
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
