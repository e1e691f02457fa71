import LedgerCore

/// Everything that decides a simulation. Two runs with equal configurations give identical output.
public struct SimulationConfig: Sendable, Hashable {
    /// How many users the population has (ids `1…users`).
    public var users: Int
    /// How many months are simulated (in the sandbox, months of the rate's compressed time).
    public var months: Int
    /// The seed of every random choice.
    public var seed: UInt64
    /// `Production` or `Sandbox`.
    public var environment: LedgerEnvironment
    /// The sandbox renewal rate (used only when ``environment`` is the sandbox).
    public var sandboxRate: SandboxRate
    /// The first instant of the simulated period.
    public var start: Instant
    /// The products users buy (every auto-renewable product with devices is eligible).
    public var catalog: Catalog
    /// The app's bundle identifier.
    public var bundleId: String
    /// The app's Apple ID.
    public var appAppleId: Int64
    /// The app's build number, as `data.bundleVersion`.
    public var bundleVersion: String
    /// The subscription group of every product.
    public var subscriptionGroupIdentifier: String
    /// How often each behaviour happens.
    public var behaviour: SimulationBehaviour

    /// 2026-01-01T00:00:00Z, the default start.
    public static let defaultStart = Instant(
        milliseconds: 1_767_225_600_000)  // 2026-01-01T00:00:00Z

    /// The sandbox's limit: a subscription renews at most this many times after its purchase.
    public static let sandboxRenewalLimit = 12

    /// Creates a configuration; everything but the population's size, length and seed has a default.
    public init(
        users: Int, months: Int, seed: UInt64, environment: LedgerEnvironment = .production,
        sandboxRate: SandboxRate = .everyFiveMinutes, start: Instant = SimulationConfig.defaultStart,
        catalog: Catalog = .visla, bundleId: String = "com.visla.gps", appAppleId: Int64 = 1_234_567_890,
        bundleVersion: String = "637", subscriptionGroupIdentifier: String = "21752814",
        behaviour: SimulationBehaviour = SimulationBehaviour()
    ) {
        self.users = users
        self.months = months
        self.seed = seed
        self.environment = environment
        self.sandboxRate = sandboxRate
        self.start = start
        self.catalog = catalog
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.bundleVersion = bundleVersion
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.behaviour = behaviour
    }

    /// Whether this is a sandbox simulation.
    public var isSandbox: Bool { environment == .sandbox }

    /// The time model: compressed in the sandbox.
    public var clock: SimulationClock { SimulationClock(sandboxRate: isSandbox ? sandboxRate : nil) }

    /// The end (exclusive) of the simulated period: nothing happens at or after it.
    public var end: Instant { clock.end(of: Period(name: "P\(months)M", months: months), from: start) }

    /// The products users can buy: auto-renewable, with at least one device.
    public var purchasableProducts: [Product] {
        catalog.products.filter { $0.kind == .autoRenewable && $0.devices > 0 }
    }

    /// The most users × months one simulation holds: its model and truth stay in memory (about 4 KB a user-month).
    public static let maxUserMonths = 240_000

    /// Checks the ranges; the message names the option and what it accepts.
    public func validate() throws(SimulationError) {
        guard (0...1_000_000).contains(users) else {
            throw SimulationError(.invalidConfiguration, "--users must be from 0 to 1000000, not \(users)")
        }
        guard (1...240).contains(months) else {
            throw SimulationError(.invalidConfiguration, "--months must be from 1 to 240, not \(months)")
        }
        guard users * months <= Self.maxUserMonths else {
            throw SimulationError(
                .invalidConfiguration,
                "--users × --months may be at most \(Self.maxUserMonths) (20000 users for a year: about 1.8 GB of "
                    + "notifications and 1 GB of memory), not \(users * months); simulate fewer users or months")
        }
        guard environment == .production || environment == .sandbox else {
            throw SimulationError(
                .invalidConfiguration, "the simulator writes sandbox or production traffic, not \(environment)")
        }
        guard !purchasableProducts.isEmpty else {
            throw SimulationError(
                .invalidConfiguration, "the catalog has no auto-renewable product with devices to simulate")
        }
        guard !bundleId.isEmpty, appAppleId > 0 else {
            throw SimulationError(.invalidConfiguration, "the bundle id must be set and the app Apple ID positive")
        }
    }
}
