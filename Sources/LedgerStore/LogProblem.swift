import LedgerCrypto
import LedgerErrors

/// The first thing found wrong in a log: what, where, and whether it is only a torn tail.
public struct LogProblem: Sendable, Hashable, CustomStringConvertible {
    /// A stable, opaque classification of a problem.
    public typealias Kind = ErrorCode<LogProblem>

    /// What is wrong.
    public var kind: Kind
    /// The segment file (or `evidence/pack-…` file), when the problem is in one.
    public var segment: String?
    /// The byte offset in that segment.
    public var offset: Int64?
    /// The seq of the record concerned (the expected seq when the record is unreadable).
    public var seq: UInt64?
    /// What happened and what to do.
    public var message: String

    /// Whether only a torn tail is wrong, which `repair` (or opening for write) cuts safely.
    public var isTail: Bool { kind == .tornTail }

    /// Creates a problem.
    public init(kind: Kind, segment: String?, offset: Int64?, seq: UInt64?, message: String) {
        self.kind = kind
        self.segment = segment
        self.offset = offset
        self.seq = seq
        self.message = message
    }

    public var description: String { message }
}

extension ErrorCode where Domain == LogProblem {
    /// The bytes after the last valid record are an incomplete or failed-checksum frame (a crash mid-write).
    public static var tornTail: Self { Self("tornTail") }
    /// A record fails its checksum or is malformed, and valid records follow it.
    public static var damagedRecord: Self { Self("damagedRecord") }
    /// A record's checksum is fine but its chain hash is not: it was rewritten.
    public static var chainBroken: Self { Self("chainBroken") }
    /// A seq is missing or out of order, or a segment file is missing.
    public static var sequenceGap: Self { Self("sequenceGap") }
    /// A record's time is before its predecessor's.
    public static var timeOrder: Self { Self("timeOrder") }
    /// A segment header is damaged, or names another environment.
    public static var damagedSegmentHeader: Self { Self("damagedSegmentHeader") }
    /// Files from a newer format version.
    public static var newerVersion: Self { Self("newerVersion") }
    /// An evidence pack entry fails its checksum or cannot be read, before the pack's end (or at its end, and a
    /// record refers to it).
    public static var damagedEvidence: Self { Self("damagedEvidence") }
    /// Records refer to evidence that no evidence pack (nor a per-file copy) holds.
    public static var missingEvidence: Self { Self("missingEvidence") }
    /// The index files cover records past the log's head: records once acknowledged are gone (a segment
    /// deleted or cut short at a record boundary, or the log replaced by an older copy).
    public static var lostRecords: Self { Self("lostRecords") }
    /// A record passes its checksum and its chain hash, but its payload is not a record the layer above reads
    /// (see ``RecordReader``): written so, or by a newer version of the record encoding.
    public static var unreadableRecord: Self { Self("unreadableRecord") }
    /// The head differs from the expected head.
    public static var headMismatch: Self { Self("headMismatch") }
}

extension LogProblem {
    /// What a pinned hash that no longer matches means: a rewrite of history, another log, or — for a hash pinned
    /// as the head's — records appended since, which `--expect-seq` with the pinned seq tells apart.
    public static func headMismatchCauses(pinnedAtHead: Bool) -> String {
        pinnedAtHead
            ? "records were appended since it was pinned (give its seq with --expect-seq), history was rewritten, "
                + "or this is another log"
            : "history was rewritten up to there, or this is another log"
    }
}

/// Records the index files covered that the log no longer holds: the writer writes those files only for records it
/// has made durable, so a log that ends before the record they cover has lost acknowledged records.
public struct LostRecords: Sendable, Hashable, CustomStringConvertible {
    /// The last record the index files covered.
    public var coveredSeq: UInt64
    /// Its chain hash, as the index files have it.
    public var coveredHash: [UInt8]
    /// Where the log ends.
    public var headSeq: UInt64

    /// Creates the finding.
    public init(coveredSeq: UInt64, coveredHash: [UInt8], headSeq: UInt64) {
        self.coveredSeq = coveredSeq
        self.coveredHash = coveredHash
        self.headSeq = headSeq
    }

    /// The records lost, as words: "record 7" or "records 7…9".
    var range: String {
        coveredSeq == headSeq + 1 ? "record \(coveredSeq)" : "records \(headSeq + 1)…\(coveredSeq)"
    }

    public var description: String {
        "the index files covered the log up to record \(coveredSeq) (chain hash \(Hex.encode(coveredHash))) but it "
            + "ends at record \(headSeq): \(range) had been acknowledged and are gone (a segment deleted or cut short, "
            + "or the log replaced by an older copy). Restore the missing segments from a backup if you have them"
    }
}
