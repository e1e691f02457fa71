/// What a store's open, verify and repair report, whichever store it is.

/// What opening for write cut off a torn tail.
public struct RecoveryReport: Sendable, Hashable, CustomStringConvertible {
    /// The segment that had the torn tail.
    public var segment: String
    /// Where the cut started (the byte after the last valid record; 0 when a torn new segment was moved aside).
    public var offset: Int64
    /// How many bytes were cut.
    public var bytesCut: Int64
    /// Where the cut bytes were kept.
    public var savedAs: String
    /// The last valid record's seq, now the head.
    public var headSeq: UInt64

    /// Describes a cut.
    public init(segment: String, offset: Int64, bytesCut: Int64, savedAs: String, headSeq: UInt64) {
        self.segment = segment
        self.offset = offset
        self.bytesCut = bytesCut
        self.savedAs = savedAs
        self.headSeq = headSeq
    }

    public var description: String {
        "cut \(bytesCut) bytes of torn tail from \(segment) at byte \(offset) (kept in \(savedAs)); "
            + "the log ends at record \(headSeq)"
    }
}

/// What the writer's open cut off the last evidence pack: bytes after its last valid entry that no record refers
/// to (a crash mid-write).
public struct EvidenceRecovery: Sendable, Hashable, CustomStringConvertible {
    /// The pack's file name.
    public var pack: String
    /// Where the cut started (the byte after the last valid entry).
    public var offset: Int64
    /// How many bytes were cut.
    public var bytesCut: Int64
    /// Where the cut bytes were kept.
    public var savedAs: String

    /// Describes a cut.
    public init(pack: String, offset: Int64, bytesCut: Int64, savedAs: String) {
        self.pack = pack
        self.offset = offset
        self.bytesCut = bytesCut
        self.savedAs = savedAs
    }

    public var description: String {
        "cut \(bytesCut) bytes of torn tail from evidence pack \(pack) at byte \(offset) (kept in \(savedAs)); "
            + "no record refers to them"
    }
}

/// What `verify` found.
public struct VerifyReport: Sendable, Hashable {
    /// How many valid records precede the first problem (all of them when there is none).
    public var records: UInt64
    /// The last valid record's seq.
    public var headSeq: UInt64
    /// Its chain hash (the genesis hash when the log is empty).
    public var headHash: [UInt8]
    /// The last valid record's time (ms since the epoch; 0 when empty).
    public var headTime: Int64
    /// The environment the directory is bound to (nil when never written).
    public var environment: String?
    /// How many segment files there are.
    public var segments: Int
    /// The first problem, if any.
    public var problem: LogProblem?
    /// How many records refer to evidence that is not there (0 when the references were not checked).
    public var missingEvidence: UInt64 = 0

    /// Whether every checksum, seq, time and chain hash is right (and the head is the expected one).
    public var ok: Bool { problem == nil }

    /// Creates a report (for other stores' checks of the same contract).
    public init(
        records: UInt64, headSeq: UInt64, headHash: [UInt8], headTime: Int64, environment: String?, segments: Int,
        problem: LogProblem?
    ) {
        self.records = records
        self.headSeq = headSeq
        self.headHash = headHash
        self.headTime = headTime
        self.environment = environment
        self.segments = segments
        self.problem = problem
    }
}

/// Reads a record's payload as the layer above the log reads it (for `verify`): nil when it reads, else why not.
/// The log itself only frames, checksums and chains payloads; what is in them is the ledger's.
public typealias RecordReader = (UnsafeRawBufferPointer) -> String?
