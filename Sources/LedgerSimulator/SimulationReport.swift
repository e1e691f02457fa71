/// What a written simulation holds, for the command's summary line.
public struct SimulationReport: Sendable, Hashable {
    /// Users simulated.
    public var users: Int
    /// Distinct notifications.
    public var notifications: Int
    /// Lines written (deliveries, duplicates included).
    public var deliveries: Int
    /// Repeated deliveries.
    public var duplicates: Int
    /// Deliveries arriving after a later-signed notification of the same subscription.
    public var outOfOrder: Int
    /// Truth samples (users and orphans).
    public var samples: Int
    /// Size of `notifications.jsonl`.
    public var bytes: Int

    /// Summarises a simulation.
    public init(simulation: Simulation, bytes: Int) {
        users = simulation.config.users
        notifications = simulation.notifications.count
        deliveries = simulation.deliveries.count
        duplicates = simulation.duplicateDeliveries
        outOfOrder = simulation.outOfOrderDeliveries
        samples =
            simulation.truth.users.reduce(0) { $0 + $1.samples.count }
            + simulation.truth.orphans.reduce(0) { $0 + $1.samples.count }
        self.bytes = bytes
    }
}
