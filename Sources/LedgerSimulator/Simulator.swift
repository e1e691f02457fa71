import LedgerCore
import LedgerJSON

/// Simulates Visla's subscribers: a population over the catalog's products living their subscriptions
/// (purchases, renewals, plan changes, churn, billing failures, refunds, Family Sharing, resubscriptions),
/// the App Store's notifications about it with Apple-style delivery, and the truth.
///
/// Deterministic: the same configuration gives the same ``Simulation``, whatever the machine.
public struct Simulator: Sendable {
    /// The configuration.
    public let config: SimulationConfig

    /// Creates a simulator; throws when the configuration is out of range.
    public init(config: SimulationConfig) throws(SimulationError) {
        try config.validate()
        self.config = config
    }

    /// Runs the simulation.
    public func run() -> Simulation {
        let config = self.config
        let builder = NotificationBuilder(config: config)
        let products = config.purchasableProducts
        let weights = products.map(Self.preference)
        let outages = WebhookOutages(config: config)
        let ids = Array(1...Int64(max(1, config.users))).prefix(config.users)
        let timelines = ParallelMap.map(Array(ids)) { userId in
            var lifecycle = UserLifecycle(
                config: config, builder: builder, products: products, weights: weights, outages: outages,
                userId: userId)
            return lifecycle.run()
        }
        let sampler = TruthSampler(config: config)
        let samples = ParallelMap.map(timelines) { sampler.samples(of: $0) }

        var notifications = testNotifications(builder: builder)
        var deliveries = notifications.indices.map {
            Delivery(notification: $0, deliveredAt: notifications[$0].signedDate.adding(milliseconds: 800), attempt: 1)
        }
        var users: [UserTruth] = []
        var orphans: [OrphanTruth] = []
        for (timeline, userSamples) in zip(timelines, samples) {
            let base = notifications.count
            notifications.append(contentsOf: timeline.notifications)
            for delivery in timeline.deliveries {
                deliveries.append(
                    Delivery(
                        notification: base + delivery.notification, deliveredAt: delivery.at, attempt: delivery.attempt)
                )
            }
            let otids = timeline.subscription.map { [$0.originalTransactionId] } ?? []
            if timeline.profile == .orphan, let otid = otids.first {
                orphans.append(OrphanTruth(originalTransactionId: otid, userId: timeline.userId, samples: userSamples))
            } else if let token = timeline.accountToken {
                users.append(
                    UserTruth(
                        userId: timeline.userId, appAccountToken: token, profile: timeline.profile,
                        originalTransactionIds: otids, samples: userSamples))
            }
        }
        deliveries.sort {
            ($0.deliveredAt, $0.notification, $0.attempt) < ($1.deliveredAt, $1.notification, $1.attempt)
        }
        let truth = Truth(
            environment: config.environment, start: config.start, end: config.end, users: users, orphans: orphans)
        return Simulation(config: config, notifications: notifications, deliveries: deliveries, truth: truth)
    }

    /// `TEST` notifications (Request a Test Notification): one shortly after the start, one halfway.
    private func testNotifications(builder: NotificationBuilder) -> [SimulatedNotification] {
        var rng = SimulationRandom(seed: config.seed, stream: UInt64.max)
        let start = config.start
        let half = (config.end.milliseconds - start.milliseconds) / 2
        return [config.clock.scaled(600_000), half].map { offset in
            let signed = start.adding(milliseconds: offset)
            let envelope = builder.envelope(
                type: "TEST", subtype: nil, uuid: rng.uuid(), signedDate: signed, status: nil, hasTransaction: false,
                hasRenewal: false)
            return SimulatedNotification(
                uuid: envelope["notificationUUID"]!.string!, type: "TEST", subtype: nil, signedDate: signed,
                userId: nil,
                originalTransactionId: nil, status: nil, envelope: envelope, transaction: nil, renewal: nil)
        }
    }

    /// How likely a product is chosen: more small plans than large, monthly plans most, then annual.
    static func preference(_ product: Product) -> Double {
        let byDevices: [Double] = [30, 24, 14, 10, 7, 5, 3.5, 2.5, 1.5, 2.5]
        let devices =
            product.devices >= 1 && product.devices <= 10
            ? byDevices[product.devices - 1] : 10 / Double(product.devices)
        let byPeriod: Double
        switch product.period.months {
        case 1: byPeriod = 60
        case 6: byPeriod = 12
        case 12: byPeriod = 28
        default: byPeriod = 10
        }
        return devices * byPeriod
    }
}
