import LedgerStore
import LedgerSystem

/// Everything about an ``EventLog`` that changes, guarded by its `lock`, in the parts that change together.
struct LogState {
    /// What the directory is bound to.
    var binding: LogBinding
    /// The segment files, in order; the last one takes the appends.
    var segments: [Segment] = []
    /// The last record.
    var head = LogHead()
    /// The idempotency-key and subject-key indexes, and how far the index files cover them.
    var indexes = LogIndexes()
    /// The cluster files that hold the log from its first record on, in order (see ``SubjectCluster``).
    var clusters = ClusterChain()
    /// Whether the maintenance worker has its turn: a checkpoint and cluster files in the background, or
    /// `close` and `rebuildIndexes` finishing the cluster files (one at a time; see `EventLog+Maintenance.swift`).
    var maintaining = false
    /// The append side: the group commit and the leader's memory.
    var writer = LogWriterState()
    var closed = false

    /// The chain's starting hash for this directory's environment (empty when it is not known yet).
    var headHashAtGenesis: [UInt8] { binding.environment.map { LogFormat.genesis(environment: $0) } ?? [] }

    init(environment: String?, metaWritten: Bool, identity: AppIdentity?) {
        binding = LogBinding(environment: environment, metaWritten: metaWritten, identity: identity)
    }
}

/// What the directory is bound to, as `meta` says (or will, once written).
struct LogBinding {
    var environment: String?
    /// Whether `meta` holds the binding yet.
    var metaWritten: Bool
    /// The app identity `meta` holds, or (a writer's, while `metaWritten` is false) the one it binds next.
    var identity: AppIdentity?
}

/// The last record: its seq (0 when empty), chain hash and recorded time.
struct LogHead {
    var seq: UInt64 = 0
    var hash: [UInt8] = []
    var time: Int64 = 0
}

/// The append side.
struct LogWriterState {
    /// The group commit's queue, leader and outcomes.
    var commits = GroupCommitQueue<PendingAppend, Result<[AppendOutcome], LogError>>(
        maxWeight: LogOptions().maxBatchRecords, weight: { $0.entries.count })
    /// The leader's memory for encoding a batch.
    let buffer = FrameBuffer()
    /// Set when a failed batch could not be cut off the segment; the next batch cuts it first.
    var dirtyTail: (segment: Int, size: Int64)?
    /// Told the number of records of every batch made durable (for metrics).
    var batchObserver: (@Sendable (Int) -> Void)?
}
