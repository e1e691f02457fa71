import LedgerCore
import LedgerJSON
import Testing

@testable import LedgerSimulator

@Test func theSameSeedGivesTheSamePayloadsDeliveriesAndTruth() throws {
    let config = SimulationConfig(users: 150, months: 12, seed: 99)
    let first = try Simulator(config: config).run()
    let second = try Simulator(config: config).run()
    #expect(first.notifications == second.notifications)
    #expect(first.deliveries == second.deliveries)
    #expect(first.truth.json.serializedBytes() == second.truth.json.serializedBytes())
}

@Test func anotherSeedGivesAnotherPopulation() throws {
    let first = try Simulator(config: SimulationConfig(users: 50, months: 6, seed: 1)).run()
    let second = try Simulator(config: SimulationConfig(users: 50, months: 6, seed: 2)).run()
    #expect(Set(first.notifications.map(\.uuid)).isDisjoint(with: second.notifications.map(\.uuid)))
    #expect(first.truth != second.truth)
}

@Test func addingUsersDoesNotChangeTheFirstOnes() throws {
    let small = try Simulator(config: SimulationConfig(users: 40, months: 6, seed: 5)).run()
    let large = try Simulator(config: SimulationConfig(users: 80, months: 6, seed: 5)).run()
    let smallUsers = small.notifications.filter { $0.userId != nil }
    let largeFirst = large.notifications.filter { ($0.userId ?? 0) >= 1 && ($0.userId ?? 0) <= 40 }
    #expect(smallUsers == largeFirst)
    #expect(Array(large.truth.users.prefix(small.truth.users.count)) == small.truth.users)
}

@Test func theSameSeedSignsTheSameBytes() throws {
    let config = Fixtures.small(seed: 77)
    let simulation = try Simulator(config: config).run()
    let first = try simulation.jsonLines(signedWith: SimulationSigner(seed: config.seed))
    let second = try Simulator(config: config).run().jsonLines(signedWith: SimulationSigner(seed: config.seed))
    #expect(first == second)
    #expect(!first.isEmpty)
    let other = try simulation.jsonLines(signedWith: SimulationSigner(seed: config.seed + 1))
    #expect(other != first)
}
