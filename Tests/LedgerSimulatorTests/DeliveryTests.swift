import LedgerCore
import Testing

@testable import LedgerSimulator

@Test func everyNotificationIsDeliveredSomeMoreThanOnce() {
    let simulation = Fixtures.population
    var attempts = [Int](repeating: 0, count: simulation.notifications.count)
    for delivery in simulation.deliveries { attempts[delivery.notification] += 1 }
    #expect(attempts.allSatisfy { (1...3).contains($0) })
    #expect(attempts.contains(2) && attempts.contains(3))
    #expect(simulation.duplicateDeliveries == attempts.reduce(0) { $0 + $1 - 1 })
}

@Test func deliveriesArriveInTimeOrderAfterSigningSomeOutOfOrder() {
    let simulation = Fixtures.population
    #expect(
        zip(simulation.deliveries, simulation.deliveries.dropFirst()).allSatisfy { $0.deliveredAt <= $1.deliveredAt })
    for delivery in simulation.deliveries {
        #expect(delivery.deliveredAt > simulation.notifications[delivery.notification].signedDate)
    }
    #expect(simulation.outOfOrderDeliveries > 0)
    let signedOrder = simulation.deliveries.filter { $0.attempt == 1 }.map {
        simulation.notifications[$0.notification].signedDate
    }
    #expect(signedOrder != signedOrder.sorted())
}

@Test func someDeliveriesAreLateByHoursOrDays() {
    let simulation = Fixtures.population
    let delays = simulation.deliveries.filter { $0.attempt == 1 }.map {
        $0.deliveredAt.milliseconds - simulation.notifications[$0.notification].signedDate.milliseconds
    }
    #expect(delays.contains { $0 > 3_600_000 })
    #expect(delays.contains { $0 > 86_400_000 })
    #expect(delays.filter { $0 < 10_000 }.count > delays.count * 3 / 4)
}

@Test func anOutagePostponesDeliveriesToApplesNextRetry() throws {
    let outages = WebhookOutages(config: SimulationConfig(users: 1, months: 12, seed: 3))
    let window = try #require(outages.windows.first)
    let inside = window.start.adding(milliseconds: 1000)
    let delivered = outages.delivery(firstAttempt: inside)
    #expect(delivered >= window.end)
    #expect(!outages.isDown(at: delivered))
    let retries: [Int64] = [1, 12, 24, 48, 72].map { $0 * 3_600_000 }
    #expect(retries.contains(delivered.milliseconds - inside.milliseconds))
    let before = window.start.adding(milliseconds: -1)
    #expect(outages.delivery(firstAttempt: before) == before)
}
