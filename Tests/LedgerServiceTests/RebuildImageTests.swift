import LedgerCrypto
import LedgerStore
import LedgerSystem
import LedgerTesting
import Testing

@testable import LedgerCore
@testable import LedgerLog
@testable import LedgerService

#if canImport(Glibc)
    import Glibc
#endif

/// The rebuild over an image of the log (``LogImage``: components read in place, each record's checksum checked
/// as it is decoded) gives what the streaming rebuild and the ordered fold over whole entries give, on logs of
/// many segments with components spanning them and records in no component, and refuses a damaged record.
@Suite struct RebuildImageTests {
    let directory = TemporaryDirectory()
    let at = Fixture.e2

    /// A ledger in segments of 4 KiB: every lifecycle, then operator grants to 300 users and links joining every
    /// seven of them through a subscription, interleaved so that components span segments, with records without
    /// subject keys between them.
    /// With `version1`, every other lifecycle's records are appended in version 1 of the record encoding, as a
    /// log written before version 2 holds them.
    func ledger(fileSystem: any FileSystem = PosixFileSystem(), at path: String? = nil, version1: Bool = false)
        throws -> Ledger
    {
        let ledger = try Ledger.openWriter(
            at: path ?? directory.path, environment: .sandbox, fileSystem: fileSystem,
            options: LogOptions(segmentSize: 4096))
        let log = try #require(ledger.log as? EventLog)
        for (number, lifecycle) in Lifecycle.all.enumerated() {
            guard version1, number % 2 == 0 else {
                _ = try ledger.append(lifecycle.entries.map { ($0.record, nil) })
                continue
            }
            for entry in lifecycle.entries {
                var logEntry = try Ledger.logEntry(for: entry.record)
                logEntry.payload = entry.record.encodedVersion1()
                _ = try log.append([logEntry])
            }
        }
        let payload = Lifecycle.all[0].entries[0].record.encoded()
        for round in 0..<2 {
            for user in 1...300 {
                let subject = Subject(userId: Int64(10_000 + user))
                let record =
                    round == 0
                    ? RecordBuilders.grant(
                        subject, productId: Fixture.monthly(user % 3 + 1), from: Fixture.p, until: Fixture.e3,
                        key: "grant-\(user)")
                    : RecordBuilders.link(
                        originalTransactionId: "joined-\(user / 7)", userId: Int64(10_000 + user), key: "link-\(user)")
                _ = try ledger.append([(record, nil)])
                if user % 25 == 0 {
                    _ = try log.append([LogEntry(idempotencyKey: "keyless-\(round)-\(user)", payload: payload)])
                }
            }
        }
        return ledger
    }

    /// The summary of the ordered fold over whole entries, component by component.
    func referenceSummary(_ ledger: Ledger) throws -> ProjectionSummary {
        var summary = ProjectionSummary(
            at: at, coveredSeq: ledger.head.seq, owners: 0, users: 0, subscriptions: 0, entitledSubscriptions: 0,
            devicesUnderContract: 0, byStatus: [:], byPeriod: [:])
        // Counted here from scratch (not with ProjectionSummary.add): owners as the strings that name them.
        try ledger.forEachComponent { entries in
            var owners = Set<String>()
            var users = Set<Int64>()
            for item in ledger.fold.subscriptions(in: entries, at: at, knownAt: nil) {
                let state = item.state
                owners.insert(
                    item.owner.userId.map { "u:\($0)" } ?? item.owner.appAccountToken
                        ?? "o:\(state.originalTransactionId)")
                if let user = item.owner.userId { users.insert(user) }
                summary.subscriptions += 1
                summary.byStatus[state.status.rawValue, default: 0] += 1
                if state.status.isEntitled {
                    summary.entitledSubscriptions += 1
                    summary.devicesUnderContract += state.devices
                    summary.byPeriod[state.period ?? "unknown", default: 0] += 1
                }
            }
            summary.owners += owners.count
            summary.users += users.count
        }
        return summary
    }

    /// Each component's seqs and entries as `foldComponents` hands them to its threads.
    func folded(_ ledger: Ledger, threads: Int, copyLimit: Int) throws -> Set<[LedgerEntry]> {
        let parts = try ledger.foldComponents(threads: threads, copyLimit: copyLimit, into: [[LedgerEntry]]()) {
            part, entries in part.append(entries)
        }
        let all = parts.flatMap { $0 }
        #expect(Set(all).count == all.count)
        return Set(all)
    }

    @Test func theLogSpansSegmentsAndHasRecordsInNoComponent() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let components = try ledger.components()
        let log = try #require(ledger.log as? EventLog)
        let first = try log.record(seq: 1)
        let last = try log.record(seq: log.head.seq)
        #expect(first.segment != last.segment)
        var segments = Set<String>()
        try log.forEach { segments.insert($0.segment) }
        #expect(segments.count > 20)
        #expect(components.contains { try! log.record(seq: $0[0]).segment != log.record(seq: $0.last!).segment })
        #expect(components.reduce(0) { $0 + $1.count } < Int(log.head.seq))
    }

    @Test(arguments: [1, 2, 3])
    func imageAndStreamingFoldTheSameComponents(threads: Int) throws {
        let ledger = try ledger()
        defer { ledger.close() }
        var ordered: [[LedgerEntry]] = []
        try ledger.forEachComponent { ordered.append($0) }
        #expect(try folded(ledger, threads: threads, copyLimit: .max) == Set(ordered))
        // A reader while the writer holds the directory must copy the last segment: with no room, it streams.
        let reader = try Ledger.openReader(at: directory.path)
        defer { reader.close() }
        #expect(try folded(reader, threads: threads, copyLimit: .max) == Set(ordered))
        #expect(try folded(reader, threads: threads, copyLimit: 0) == Set(ordered))
    }

    @Test func rebuildGivesTheOrderedFoldsSummary() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let reference = try referenceSummary(ledger)
        #expect(reference.subscriptions > 0)
        #expect(try ledger.rebuildProjections(at: at) == reference)
        let reader = try Ledger.openReader(at: directory.path)
        defer { reader.close() }
        #expect(try reader.rebuildProjections(at: at) == reference)
    }

    @Test func aLogOfBothRecordEncodingsRebuildsAnswersAndVerifiesAsOneOfTheCurrentEncoding() throws {
        let current = try ledger()
        defer { current.close() }
        let mixedPath = directory.path + "/mixed"
        let mixed = try ledger(at: mixedPath, version1: true)
        defer { mixed.close() }
        var versions = Set<UInt8>()
        try #require(mixed.log as? EventLog).forEachView { view, _, _ in versions.insert(view.payload.first ?? 0) }
        #expect(versions == [1, LedgerRecord.currentVersion])
        #expect(try mixed.rebuildProjections(at: at) == current.rebuildProjections(at: at))
        for lifecycle in Lifecycle.all {
            for check in lifecycle.checks {
                let query = check.query ?? lifecycle.query
                #expect(
                    try mixed.state(of: query, at: check.at, knownAt: check.knownAt)
                        == current.state(of: query, at: check.at, knownAt: check.knownAt), "\(lifecycle.name)")
            }
        }
        let report = try EventLog.verify(at: mixedPath, readRecord: Ledger.recordReader())
        #expect(report.ok, "\(String(describing: report.problem))")
        #expect(report.records == mixed.log.head.seq)
        // The lifecycles' records name evidence none of them stored: found in both encodings alike.
        let references = { (path: String) throws in
            try EventLog.verify(at: path, evidenceReferences: Ledger.evidenceReferences).missingEvidence
        }
        #expect(try references(mixedPath) > 0)
        #expect(try references(mixedPath) == references(directory.path))
    }

    @Test func aFileSystemThatDoesNotMapHasEverySegmentCopiedAndAReadFaultStopsTheRebuild() throws {
        let fileSystem = FaultInjectingFileSystem()
        let ledger = try ledger(fileSystem: fileSystem)
        defer { ledger.close() }
        let reference = try referenceSummary(ledger)
        #expect(try ledger.rebuildProjections(at: at) == reference)
        fileSystem.inject(Fault(.read, .error(EIO), pathContains: ".seg", after: 20))
        do {
            _ = try ledger.rebuildProjections(at: at)
            Issue.record("the rebuild went on past a failed read")
        } catch {
            #expect(error.code != .damaged, "\(error)")
        }
        #expect(fileSystem.firedCount > 0)
        fileSystem.clearFaults()
        #expect(try ledger.rebuildProjections(at: at) == reference)
    }

    @Test func aLastSegmentOfSeveralReadsIsGroupedRightBehindThem() throws {
        // More than 2 MiB in the last segment: the grouping waits for the reads of the copy, one by one.
        let ledger = try Ledger.openWriter(at: directory.path, environment: .sandbox)
        defer { ledger.close() }
        for batch in 0..<16 {
            let records = (0..<1_000).map { index -> (LedgerRecord, HashedBytes?) in
                let user = batch * 1_000 + index
                let record =
                    index % 3 == 2
                    ? RecordBuilders.link(
                        originalTransactionId: "joined-\(user / 3)", userId: Int64(20_000 + user), key: "link-\(user)")
                    : RecordBuilders.grant(
                        Subject(userId: Int64(20_000 + user / 3 * 3)), productId: Fixture.annual(user % 3 + 1),
                        from: Fixture.p, until: Fixture.e3, key: "grant-\(user)")
                return (record, nil)
            }
            _ = try ledger.append(records)
        }
        let log = try #require(ledger.log as? EventLog)
        #expect(try log.record(seq: log.head.seq).offset > 2 << 20)
        let reference = try referenceSummary(ledger)
        #expect(reference.subscriptions > 0)
        // A reader while the writer holds the directory: it copies the last segment (the writer maps it).
        let reader = try Ledger.openReader(at: directory.path)
        defer { reader.close() }
        #expect(try #require(try (reader.log as? EventLog)?.image()).copiedByteCount > 2 << 20)
        #expect(try reader.rebuildProjections(at: at) == reference)
        var ordered: [[LedgerEntry]] = []
        try ledger.forEachComponent { ordered.append($0) }
        #expect(try folded(reader, threads: 2, copyLimit: .max) == Set(ordered))
        #expect(try folded(ledger, threads: 2, copyLimit: .max) == Set(ordered))
    }

    @Test func imageReadsEveryRecordAsTheScanDoes() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let log = try #require(ledger.log as? EventLog)
        let image = try #require(try log.image())
        #expect(image.headSeq == log.head.seq)
        var seqs: [UInt64] = []
        try log.forEachView { view, _, _ in
            let read = try image.record(view.seq)
            #expect(Array(read.payload) == Array(view.payload))
            #expect(read.subjectKeys == view.subjectKeys)
            seqs.append(view.seq)
        }
        var imaged: [UInt64] = []
        try image.forEachRecord(checkCRC: false) { imaged.append($0.seq) }
        #expect(imaged == seqs)
        #expect(throws: LogError.self) { try image.record(0) }
        #expect(throws: LogError.self) { try image.record(log.head.seq + 1) }
        // The writer maps every segment; a reader copies the last one while the writer holds the directory.
        #expect(image.copiedByteCount == 0)
        #expect(try log.image(copyLimit: 0) != nil)
        let reader = try EventLog.openReader(at: directory.path)
        defer { reader.close() }
        #expect(try reader.image(copyLimit: 0) == nil)
        #expect(try #require(try reader.image()).copiedByteCount > 0)
    }

    /// Which record a damage test flips a payload byte of.
    enum Victim: CaseIterable {
        /// In a component, in a sealed (mapped) segment.
        case sealed
        /// In a component, in the last segment (mapped, or read into memory when the file system does not map).
        case tail
        /// In no component (no subject keys).
        case keyless
    }

    /// How a damage test's reader reads the log.
    enum Reading: CaseIterable {
        /// Every segment mapped (no writer holds the directory).
        case mapped
        /// The last segment copied (the writer holds the directory).
        case copied
        /// Sequentially, component by component (the writer holds the directory, and no copy is allowed).
        case streamed
    }

    @Test(arguments: Victim.allCases, Reading.allCases)
    func aDamagedRecordStopsTheRebuild(victim: Victim, reading: Reading) throws {
        let writer = try ledger()
        defer { writer.close() }
        let log = try #require(writer.log as? EventLog)
        let components = try writer.components()
        let inComponents = Set(components.joined())
        let tailSegment = try log.record(seq: log.head.seq).segment
        var chosen: LogRecord?
        try log.forEach { record in
            guard chosen == nil, record.seq > 3 else { return }
            switch victim {
            case .sealed where inComponents.contains(record.seq) && record.segment != tailSegment,
                .tail where inComponents.contains(record.seq) && record.segment == tailSegment,
                .keyless where !inComponents.contains(record.seq) && record.segment != tailSegment:
                chosen = record
            default: break
            }
        }
        if reading == .mapped { writer.close() }
        let record = try #require(chosen)
        let reader = try Ledger.openReader(at: directory.path)
        defer { reader.close() }
        // Damaged after the reader opened: the rebuild itself must find it, and never fold around it.
        try flipPayloadByte(of: record)
        let copyLimit = reading == .streamed ? 0 : Int.max
        let image = try (reader.log as? EventLog)?.image(copyLimit: copyLimit)
        #expect((image?.copiedByteCount).map { $0 > 0 } == [.mapped: false, .copied: true][reading])
        do {
            _ = try reader.foldComponents(copyLimit: copyLimit, into: 0) { (count: inout Int, records: FoldRecords) in
                count += records.count
            }
            Issue.record("the rebuild folded around damaged record \(record.seq)")
        } catch {
            #expect(error.code == .damaged, "\(error)")
        }
    }

    /// Flips the last payload byte of `record` in its segment file.
    func flipPayloadByte(of record: LogRecord) throws {
        let path = "\(directory.path)/log/\(record.segment)"
        let fd = open(path, O_RDWR)
        #expect(fd >= 0)
        defer { close(fd) }
        // The payload ends 32 bytes (the chain hash) before the frame does.
        var frame = [UInt8](repeating: 0, count: 8)
        #expect(pread(fd, &frame, 8, off_t(record.offset)) == 8)
        let bodyLength = Int(frame[0]) | Int(frame[1]) << 8 | Int(frame[2]) << 16 | Int(frame[3]) << 24
        let at = off_t(record.offset) + 8 + off_t(bodyLength) - 33
        var byte: UInt8 = 0
        #expect(pread(fd, &byte, 1, at) == 1)
        byte ^= 0x5A
        #expect(pwrite(fd, &byte, 1, at) == 1)
    }
}
