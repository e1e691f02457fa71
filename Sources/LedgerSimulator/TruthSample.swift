import LedgerCore

/// The expected state at one instant.
public struct TruthSample: Sendable, Hashable {
    /// The valid time.
    public var at: Instant
    /// The expected device limit (0…20).
    public var deviceLimit: Int
    /// The expected top-level status; nil where two readings are defensible (see ``Truth``).
    public var status: EntitlementStatus?

    /// Creates a sample.
    public init(at: Instant, deviceLimit: Int, status: EntitlementStatus?) {
        self.at = at
        self.deviceLimit = deviceLimit
        self.status = status
    }
}
