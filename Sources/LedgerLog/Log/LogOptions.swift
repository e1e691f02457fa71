#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Tuning for an ``EventLog``.
public struct LogOptions: Sendable {
    /// A segment is rolled (a new file started) once it holds at least this many bytes. Default 128 MiB.
    public var segmentSize: Int
    /// The index files are rewritten after this many new records (and at close); 0: only at close.
    public var checkpointInterval: Int
    /// The writer adds a cluster file (each subject's records side by side, see `Events/README.md`) once this
    /// many records are in none; 0: no cluster files are written (readers still use those there are).
    public var clusterMinimum: Int
    /// The most records one group commit writes at once.
    public var maxBatchRecords: Int
    /// Recompute every chain hash on open (otherwise only past the index files' checkpoint; checksums are always
    /// checked). `verify` always checks the whole chain.
    public var verifyChainOnOpen: Bool
    /// An evidence pack is rolled (a new `evidence/pack-…` file started) once it holds at least this many bytes.
    /// Default 256 MiB.
    public var evidencePackSize: Int
    /// Where a record's payload names the evidence it refers to (see ``EvidenceReferenceFinder``). The writer's
    /// open asks it of every record when the last evidence pack ends in bytes that fail their checksums, and does
    /// not cut them when a record refers to evidence there. Nil: the log sees no references (and cuts such bytes).
    public var evidenceReferences: EvidenceReferenceFinder?
    /// The command a writer names itself by in `LOCK`, e.g. `ledger serve` (a name, never arguments, which may hold
    /// a secret); nil: the program's name.
    public var lockHolder: String?

    /// Creates options.
    public init(
        segmentSize: Int = 128 << 20, checkpointInterval: Int = 1_000_000, clusterMinimum: Int = 65_536,
        maxBatchRecords: Int = 65_536,
        verifyChainOnOpen: Bool = false, evidencePackSize: Int = 256 << 20,
        evidenceReferences: EvidenceReferenceFinder? = nil, lockHolder: String? = nil
    ) {
        self.segmentSize = min(max(segmentSize, 4096), 1 << 31)
        self.checkpointInterval = checkpointInterval
        self.clusterMinimum = max(0, clusterMinimum)
        self.maxBatchRecords = max(1, maxBatchRecords)
        self.verifyChainOnOpen = verifyChainOnOpen
        self.evidencePackSize = max(evidencePackSize, 1)
        self.evidenceReferences = evidenceReferences
        self.lockHolder = lockHolder
    }
}
