import LedgerCore
import LedgerJSON

@testable import LedgerSimulator

/// Simulations shared by the tests (each is computed once; a run is deterministic).
enum Fixtures {
    /// The acceptance population: 300 users over 12 months in production.
    static let population: Simulation = try! Simulator(config: SimulationConfig(users: 300, months: 12, seed: 2026))
        .run()

    /// A sandbox population at the default rate over 24 compressed months, long enough to hit the
    /// 12-renewal limit.
    static let sandbox: Simulation = try! Simulator(
        config: SimulationConfig(users: 120, months: 24, seed: 11, environment: .sandbox)
    ).run()

    /// A small population, cheap to sign in debug builds.
    static func small(seed: UInt64, environment: LedgerEnvironment = .production) -> SimulationConfig {
        SimulationConfig(users: 12, months: 3, seed: seed, environment: environment)
    }

    /// Every transaction payload of a simulation with the notification that carried it.
    static func transactions(_ simulation: Simulation) -> [(
        notification: SimulatedNotification, transaction: JSONObject
    )] {
        simulation.notifications.compactMap { notification in notification.transaction.map { (notification, $0) } }
    }

    /// `TYPE` or `TYPE/SUBTYPE`.
    static func key(_ notification: SimulatedNotification) -> String {
        notification.subtype.map { "\(notification.type)/\($0)" } ?? notification.type
    }
}
