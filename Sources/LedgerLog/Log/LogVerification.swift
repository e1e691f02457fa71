import LedgerCrypto
import LedgerStore
import LedgerSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What `repair` did.
public struct RepairReport: Sendable, Hashable {
    /// The torn tail that was cut, if there was one.
    public var cut: RecoveryReport?
    /// The torn tail of the last evidence pack that was cut (bytes no record refers to), if there was one.
    public var evidenceCut: EvidenceRecovery?
    /// The head after the repair.
    public var headSeq: UInt64
    /// Its chain hash.
    public var headHash: [UInt8]

    /// Creates a report (for other stores, which have no torn tail to cut).
    public init(cut: RecoveryReport?, evidenceCut: EvidenceRecovery? = nil, headSeq: UInt64, headHash: [UInt8]) {
        self.cut = cut
        self.evidenceCut = evidenceCut
        self.headSeq = headSeq
        self.headHash = headHash
    }
}

/// Verify and repair: whole-directory checks and tail repairs, run on a data directory rather than through an
/// open log (``EventLog/verify(at:expectHead:expectSeq:fileSystem:evidenceReferences:readRecord:progress:)`` and
/// ``EventLog/repair(at:fileSystem:evidenceReferences:)`` forward here).
public enum LogVerification {
    /// Checks every segment header and record — checksum, gap-free seq, time order and the whole hash chain —
    /// and the framing of every evidence pack entry (header and body checksums), without writing anything and
    /// without the lock, and reports the first problem with its segment (or pack), offset and record.
    /// - Parameters:
    ///   - expectHead: a pinned chain hash; the check fails unless it is the hash of record `expectSeq`
    ///     (or of the head when `expectSeq` is nil). Any rewrite of history up to there changes it.
    ///   - evidenceReferences: where a record names the evidence it refers to. With it, every record's reference
    ///     must resolve to an entry in the packs (or a per-file copy): an index lookup, the bodies are not read
    ///     (`missingEvidence`, naming the first record and the count); and bytes at the end of the last evidence
    ///     pack that a record refers to are damage, not a torn tail.
    ///   - readRecord: reads every record's payload; the first it cannot read is an `unreadableRecord` problem (when
    ///     nothing before it in the checks above is wrong), with the count of such records.
    ///   - progress: called now and then with the seq reached.
    /// - Throws: only when files cannot be read at all.
    public static func verify(
        at directory: String, expectHead: [UInt8]? = nil, expectSeq: UInt64? = nil,
        fileSystem: any FileSystem = PosixFileSystem(), evidenceReferences: EvidenceReferenceFinder? = nil,
        readRecord: RecordReader? = nil, progress: ((UInt64) -> Void)? = nil
    ) throws(LogError) -> VerifyReport {
        let layout = DataDirectory(root: directory)
        // A damaged `meta` is a finding of the report (the walk reads the environment from the segment headers),
        // not an error that leaves `verify --json` without its document.
        let meta: Meta?
        var damagedMeta: String?
        do {
            meta = try Meta.read(fileSystem, layout)
        } catch {
            guard error.code == .damaged else { throw error }
            meta = nil
            damagedMeta = error.message
        }
        var pinned: [UInt8]?
        var walk: LogWalk
        var attempt = 0
        let packs = EvidenceStore(layout, fileSystem: fileSystem, writable: false, limit: EvidencePack.defaultLimit)
        defer { packs.close() }
        var missing: (count: UInt64, first: (seq: UInt64, digest: EvidenceDigest)?, error: SystemError?)
        var unreadable: (count: UInt64, first: (seq: UInt64, reason: String)?)
        // Read before the walk: a live writer writes them for durable records only, which the walk then sees.
        let indexed = IndexFiles(fileSystem, layout).coverage()
        while true {
            missing = (0, nil, nil)
            unreadable = (0, nil)
            walk = try LogWalk.run(fileSystem, layout, environment: meta?.environment, writable: false, chainFrom: 1) {
                view in
                if let expectSeq, view.seq == expectSeq { pinned = Array(view.hash) }
                if let progress, view.seq & 0xFFFF == 0 { progress(view.seq) }
                if let readRecord, let reason = readRecord(view.payload) {
                    unreadable.count += 1
                    if unreadable.first == nil { unreadable.first = (view.seq, reason) }
                }
                guard let evidenceReferences, missing.error == nil,
                    let digest = EvidenceReferences.reference(view.payload, evidenceReferences)
                else { return }
                do throws(SystemError) {
                    if try !packs.holds(digest) {
                        missing.count += 1
                        if missing.first == nil { missing.first = (view.seq, digest) }
                    }
                } catch {
                    missing.error = error
                }
            }
            // A live writer may have been mid-write: if the segment with the "torn" tail has grown since, look again.
            guard attempt < 3, walk.problem?.isTail == true, let tail = walk.tail else { break }
            let name = walk.segments[tail.segment].name
            guard let now = try? fileSystem.stat(layout.segment(name)), now.size != walk.tailFileSize else { break }
            walk.closeAll(fileSystem)
            attempt += 1
            usleep(20_000)
        }
        defer { walk.closeAll(fileSystem) }
        if let error = missing.error {
            throw LogError.system(error, "reading the evidence packs in \(layout.evidence)")
        }
        let environment = meta?.environment ?? walk.environment
        let headHash =
            walk.headHash.isEmpty ? (environment.map { LogFormat.genesis(environment: $0) } ?? []) : walk.headHash
        var report = VerifyReport(
            records: walk.headSeq, headSeq: walk.headSeq, headHash: headHash, headTime: walk.headTime,
            environment: environment, segments: try layout.segmentNames(fileSystem).count, problem: walk.problem)
        if let damagedMeta, report.problem == nil {
            report.problem = LogProblem(
                kind: .damagedSegmentHeader, segment: nil, offset: nil, seq: nil, message: damagedMeta)
        }
        if meta == nil && walk.headSeq > 0 && report.problem == nil {
            report.problem = LogProblem(
                kind: .damagedSegmentHeader, segment: nil, offset: nil, seq: nil,
                message: "\(layout.meta) is missing although the log holds records; restore it from a backup")
        }
        if report.problem == nil, let indexed, indexed.seq > walk.headSeq {
            let lost = LostRecords(coveredSeq: indexed.seq, coveredHash: indexed.hash, headSeq: walk.headSeq)
            report.problem = LogProblem(
                kind: .lostRecords, segment: nil, offset: nil, seq: walk.headSeq + 1,
                message: "\(lost); the next open for write reports the loss and goes on from record \(walk.headSeq + 1)"
            )
        }
        if report.problem == nil, let (seq, reason) = unreadable.first {
            var place: (segment: String, offset: Int64)?
            try SegmentReader.scan(fileSystem, walk.segments, from: seq, through: seq, checkCRC: false) {
                _, segment, offset in
                place = (segment, offset)
                return false
            }
            let more = unreadable.count > 1 ? " (\(unreadable.count) records in all)" : ""
            report.problem = LogProblem(
                kind: .unreadableRecord, segment: place?.segment, offset: place?.offset, seq: seq,
                message:
                    "segment \(place?.segment ?? "?") byte \(place?.offset ?? 0): record \(seq) passes its checksum "
                    + "and its chain hash but cannot be read\(more): \(reason)")
        }
        if report.problem == nil {
            let (segments, headSeq) = (walk.segments, walk.headSeq)
            func referring(_ digests: Set<EvidenceDigest>) throws(LogError) -> (seq: UInt64, digest: EvidenceDigest)? {
                try EvidenceReferences.firstReference(
                    fileSystem, segments, through: headSeq, finder: evidenceReferences, to: digests)
            }
            report.problem = try EvidenceStore.verify(
                layout, fileSystem: fileSystem, firstReference: evidenceReferences == nil ? nil : referring)
        }
        report.missingEvidence = missing.count
        if let (seq, digest) = missing.first, report.problem?.isTail ?? true {
            // More serious than a torn tail, which loses nothing acknowledged.
            report.problem = LogProblem(
                kind: .missingEvidence, segment: nil, offset: nil, seq: seq,
                message: "record \(seq) refers to evidence \(Hex.encode(digest.bytes)) that no evidence pack in "
                    + "\(layout.evidence) holds; \(missing.count) record(s) refer to evidence missing from there. "
                    + "Restore the evidence packs from a backup (`ledger audit` names a subject's records whose "
                    + "evidence is missing)")
        }
        if let expectHead, report.problem == nil || expectSeq != nil {
            let actual = expectSeq == nil ? headHash : pinned
            if actual != expectHead {
                let at = expectSeq.map { "record \($0)" } ?? "the head (record \(walk.headSeq))"
                let found = actual.map { Hex.encode($0) } ?? "no such record"
                report.problem =
                    report.problem
                    ?? LogProblem(
                        kind: .headMismatch, segment: nil, offset: nil, seq: expectSeq ?? walk.headSeq,
                        message: "the chain hash of \(at) is \(found), not the expected \(Hex.encode(expectHead)); "
                            + LogProblem.headMismatchCauses(pinnedAtHead: expectSeq == nil))
            }
        }
        return report
    }

    /// Cuts a torn tail after the last valid record, and one after the last evidence pack's last valid entry,
    /// keeping the cut bytes in `lost+found`; never drops a valid record, nor evidence a record refers to (see
    /// `evidenceReferences`). Takes the writer lock. Refuses with ``LogError/Code/damaged`` when damage is not at
    /// the tail, including a record rewritten with its checksum recomputed: unlike an ordinary open for write,
    /// which trusts the chain up to its index checkpoint, repair recomputes the whole hash chain first.
    public static func repair(
        at directory: String, fileSystem: any FileSystem = PosixFileSystem(),
        evidenceReferences: EvidenceReferenceFinder? = nil
    ) throws(LogError) -> RepairReport {
        let options = LogOptions(verifyChainOnOpen: true, evidenceReferences: evidenceReferences)
        let log = try EventLog.openWriter(at: directory, environment: nil, options: options, fileSystem: fileSystem)
        defer { log.close() }
        let (seq, hash) = log.head
        return RepairReport(cut: log.recovery, evidenceCut: log.evidenceRecovery, headSeq: seq, headHash: hash)
    }
}

extension EventLog {
    /// ``LogVerification/verify(at:expectHead:expectSeq:fileSystem:evidenceReferences:readRecord:progress:)``.
    public static func verify(
        at directory: String, expectHead: [UInt8]? = nil, expectSeq: UInt64? = nil,
        fileSystem: any FileSystem = PosixFileSystem(), evidenceReferences: EvidenceReferenceFinder? = nil,
        readRecord: RecordReader? = nil, progress: ((UInt64) -> Void)? = nil
    ) throws(LogError) -> VerifyReport {
        try LogVerification.verify(
            at: directory, expectHead: expectHead, expectSeq: expectSeq, fileSystem: fileSystem,
            evidenceReferences: evidenceReferences, readRecord: readRecord, progress: progress)
    }

    /// ``LogVerification/repair(at:fileSystem:evidenceReferences:)``.
    public static func repair(
        at directory: String, fileSystem: any FileSystem = PosixFileSystem(),
        evidenceReferences: EvidenceReferenceFinder? = nil
    ) throws(LogError) -> RepairReport {
        try LogVerification.repair(at: directory, fileSystem: fileSystem, evidenceReferences: evidenceReferences)
    }
}
