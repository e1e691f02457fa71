import LedgerCore
import Testing

@testable import LedgerSimulator

@Test(arguments: [
    SimulationConfig(users: -1, months: 12, seed: 1),
    SimulationConfig(users: 1_000_001, months: 12, seed: 1),
    SimulationConfig(users: 10, months: 0, seed: 1),
    SimulationConfig(users: 10, months: 241, seed: 1),
    SimulationConfig(users: 20_001, months: 12, seed: 1),
    SimulationConfig(users: 1_001, months: 240, seed: 1),
    SimulationConfig(users: 10, months: 12, seed: 1, environment: .xcode),
    SimulationConfig(users: 10, months: 12, seed: 1, catalog: Catalog(products: [])),
])
func outOfRangeConfigurationsAreRefusedWithAMessage(config: SimulationConfig) {
    #expect(throws: SimulationError(.invalidConfiguration, "")) { try Simulator(config: config) }
}

@Test func theDefaultsMatchTheVislaApp() {
    let config = SimulationConfig(users: 1, months: 1, seed: 1)
    #expect(config.bundleId == "com.visla.gps")
    #expect(config.environment == .production)
    #expect(config.start.iso8601 == "2026-01-01T00:00:00Z")
    #expect(config.end.iso8601 == "2026-02-01T00:00:00Z")
    #expect(config.purchasableProducts.count == 30)
}

@Test func aSandboxSimulationLastsItsMonthsAtTheRate() {
    let config = SimulationConfig(users: 1, months: 12, seed: 1, environment: .sandbox, sandboxRate: .everyHour)
    #expect(config.end.milliseconds - config.start.milliseconds == 12 * 3_600_000)
}

@Test func anEmptyPopulationProducesOnlyTestNotifications() throws {
    let simulation = try Simulator(config: SimulationConfig(users: 0, months: 2, seed: 3)).run()
    #expect(simulation.notifications.map(\.type) == ["TEST", "TEST"])
    #expect(simulation.truth.users.isEmpty)
}
