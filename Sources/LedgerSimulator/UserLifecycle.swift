import LedgerCore
import LedgerJSON

/// Lives one user's life as a discrete-event simulation: picks a plan, renews, churns, fails to pay,
/// recovers, gets refunds, changes plans and resubscribes, emitting the App Store's notifications as it goes.
///
/// Every random choice comes from the user's own stream, so a user's timeline depends only on the seed and
/// the user id. Nothing at or after the end of the simulation happens.
struct UserLifecycle {
    let config: SimulationConfig
    let clock: SimulationClock
    let builder: NotificationBuilder
    let end: Instant
    let products: [Product]
    let productWeights: [Double]
    var rng: SimulationRandom
    var timeline: UserTimeline
    let storefront: Storefront
    let outages: WebhookOutages

    var queue = EventQueue()
    /// Bumped by every change of period or billing state; events planned for an older one are dropped.
    var generation = 0
    /// Transactions allocated so far (ids are derived from the user id and this counter).
    var transactionCount = 0
    /// The instant of the event being handled.
    var now: Instant

    init(
        config: SimulationConfig, builder: NotificationBuilder, products: [Product], weights: [Double],
        outages: WebhookOutages, userId: Int64
    ) {
        self.config = config
        self.outages = outages
        self.clock = config.clock
        self.builder = builder
        self.end = config.end
        self.products = products
        self.productWeights = weights
        self.now = config.start
        var rng = SimulationRandom(seed: config.seed, stream: UInt64(bitPattern: userId))
        let behaviour = config.behaviour
        let profile: UserProfile
        if rng.chance(behaviour.neverSubscribes) {
            profile = .bystander
        } else if rng.chance(behaviour.familyMember) {
            profile = .familyMember
        } else if rng.chance(behaviour.orphan) {
            profile = .orphan
        } else {
            profile = .subscriber
        }
        let token = AccountToken.token(forUser: userId)
        self.storefront = Storefront.euro[rng.weighted(Storefront.euro.map(\.weight))].storefront
        self.rng = rng
        self.timeline = UserTimeline(userId: userId, profile: profile, accountToken: token)
    }

    /// Runs the user's life to the end of the simulation and returns it.
    mutating func run() -> UserTimeline {
        guard timeline.profile != .bystander else { return timeline }
        let span = end.milliseconds - config.start.milliseconds
        let joinOffset: Int64
        if rng.chance(config.behaviour.earlyJoiners) {
            joinOffset = min(span / 10, clock.days(3)) * Int64(rng.unit() * 1000) / 1000
        } else {
            joinOffset = Int64(rng.unit() * Double(span) * 0.92)
        }
        queue.schedule(.subscribe, at: config.start.adding(milliseconds: joinOffset), generation: nil)
        while let event = queue.next() {
            if let planned = event.generation, planned != generation { continue }
            guard event.time < end else { break }
            now = event.time
            handle(event.action)
        }
        return timeline
    }

    private mutating func handle(_ action: LifecycleEvent.Action) {
        switch action {
        case .subscribe: subscribe()
        case .periodEnd: periodEnd()
        case .disableAutoRenew: setAutoRenew(false)
        case .enableAutoRenew: setAutoRenew(true)
        case .upgrade: upgrade()
        case .downgrade: downgrade()
        case .cancelDowngrade: cancelDowngrade()
        case .requestRefund: requestRefund()
        case .applyRefund: applyRefund()
        case .disableAfterRefund: setAutoRenew(false)
        case .reverseRefund(let index): reverseRefund(index)
        case .refundPast: refundPast()
        case .requestDeclinedRefund(let index): requestDeclinedRefund(index)
        case .declineRefund(let index): emitAbout(index, type: "REFUND_DECLINED")
        case .priceIncrease: priceIncrease()
        case .acceptPriceIncrease: acceptPriceIncrease()
        case .offerRedeemed: offerRedeemed()
        case .extendRenewal: extendRenewal()
        case .familyRevoke: familyRevoke()
        case .graceExpired: graceExpired()
        case .recover(let inGrace): recover(inGrace: inGrace)
        case .retryExpired: retryExpired()
        case .resubscribe: resubscribe()
        }
    }

    // MARK: - Helpers shared by the lifecycle's concerns

    /// The subscription; only called once the user has subscribed.
    var subscription: SubscriptionModel {
        get { timeline.subscription! }
        _modify { yield &timeline.subscription! }
    }

    /// A new transaction of `product` purchased at `purchase`, with fresh ids.
    mutating func newTransaction(_ product: Product, purchase: Instant, reason: String) -> ModelTransaction {
        transactionCount += 1
        let serial = timeline.userId * 10_000 + Int64(transactionCount)
        return ModelTransaction(
            transactionId: String(2_000_000_000_000_000 + serial),
            webOrderLineItemId: String(1_000_000_000_000_000 + serial),
            product: product, purchase: purchase, expires: clock.end(of: product.period, from: purchase),
            reason: reason)
    }

    /// A product drawn from the population's preferences (more small plans than large).
    mutating func pickProduct() -> Product {
        products[rng.weighted(productWeights)]
    }

    /// An instant at a fraction drawn from `lower..<upper` of the way from `from` to `to`.
    mutating func instant(between from: Instant, and to: Instant, lower: Double = 0, upper: Double = 1) -> Instant {
        let span = Double(to.milliseconds - from.milliseconds)
        let fraction = lower + rng.unit() * (upper - lower)
        return from.adding(milliseconds: Int64(span * fraction))
    }

    /// A duration of `lower…upper` real days, as this clock runs it.
    mutating func days(_ lower: Double, _ upper: Double) -> Int64 {
        clock.days(lower + rng.unit() * (upper - lower))
    }

    /// The probability that something with monthly probability `p` happens within `months` months.
    func perPeriod(_ p: Double, months: Int) -> Double {
        var none = 1.0
        for _ in 0..<max(1, months) { none *= 1 - p }
        return 1 - none
    }

    /// Starts a new period state: events planned for the previous one no longer apply.
    mutating func advanceGeneration() { generation += 1 }

    /// `data.status` as of now: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    var currentStatus: Int32 {
        let sub = subscription
        let txn = sub.current
        if let revocation = txn.revocation, revocation.date <= now { return 5 }
        if now < txn.expires { return 1 }
        if let lapse = sub.lapses.last, lapse.from == txn.expires, now < lapse.retryUntil {
            if let grace = lapse.graceUntil, now < grace { return 4 }
            return 3
        }
        return 2
    }
}
