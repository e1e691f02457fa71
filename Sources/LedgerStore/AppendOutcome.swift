/// What happened to one appended entry.
public enum AppendOutcome: Sendable, Hashable {
    /// Appended durably as record `seq`, recorded at `recordedAt` (ms since the epoch).
    case appended(seq: UInt64, recordedAt: Int64)
    /// Already in the log as record `seq` (same idempotency key); nothing was written.
    case duplicate(seq: UInt64)

    /// The record's seq either way.
    public var seq: UInt64 {
        switch self {
        case .appended(let seq, _), .duplicate(let seq): return seq
        }
    }
}
