import LedgerStore
import LedgerSystem
import Testing

@testable import LedgerLog

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct AppendTests {
    @Test func appendsGetGapFreeSeqsAndReadBack() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        defer { log.close() }
        var seqs: [UInt64] = []
        for n in 1...20 { seqs.append(try log.append(entry(n)).seq) }
        #expect(seqs == Array(1...20))
        let record = try log.record(seq: 7)
        #expect(record.idempotencyKey == "notification-7")
        #expect(record.payload == entry(7).payload)
        #expect(record.subjectKeys == entry(7).subjectKeys)
        #expect(log.head.seq == 20)
        #expect(log.head.hash == (try log.record(seq: 20)).hash)
    }

    /// The file log hashes each frame's body in place; the store contract's ``LogFormat/chainHash`` encodes the
    /// same body on its own (the PostgreSQL store uses it). Both give every record the same hash, from the genesis
    /// on, for keys, subjects and payloads of every size, in single appends and in one big batch.
    @Test func everyRecordCarriesTheContractsChainHash() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        defer { log.close() }
        var generator = SystemRandomNumberGenerator()
        func randomEntry(_ n: Int) -> LogEntry {
            let subjects = (0..<Int.random(in: 0...5, using: &generator)).map { "subject-\(n)-\($0)-é" }
            let payload = (0..<Int.random(in: 0...3_000, using: &generator)).map { _ in UInt8.random(in: 0...255) }
            return LogEntry(
                idempotencyKey: "key-\(n)-" + String(repeating: "k", count: n % 200), subjectKeys: subjects,
                payload: payload)
        }
        for n in 1...50 { _ = try log.append(randomEntry(n)) }
        _ = try log.append((51...600).map(randomEntry))
        var previous = LogFormat.genesis(environment: "sandbox")
        try log.forEach(from: 1) { record in
            let expected = LogFormat.chainHash(
                previous: previous, seq: record.seq, recordedAt: record.recordedAt, entry: LogEntry(record))
            #expect(record.hash == expected, "record \(record.seq)")
            #expect(record.chainLinkHolds(after: previous))
            previous = record.hash
        }
        #expect(previous == log.head.hash)
    }

    @Test func aBatchIsOneCallWithOneOutcomePerEntry() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        defer { log.close() }
        let outcomes = try log.append([entry(1), entry(2), entry(1), entry(3)])
        #expect(outcomes.map(\.seq) == [1, 2, 1, 3])
        #expect(outcomes[2] == .duplicate(seq: 1))
        #expect(log.head.seq == 3)
    }

    /// A batch of several megabytes and thousands of records takes the big-batch paths (frames hashed on a helper
    /// thread behind the filling, both indexes updated on two threads): the bytes and the indexes are exactly
    /// those of the same records appended one call at a time.
    @Test func aBigBatchWritesAndIndexesWhatOneRecordAtATimeDoes() throws {
        let time: Int64 = 1_767_225_600_000
        let entries = (1...9_000).map { entry($0, payloadSize: 600, time: time) }  // about 5.8 MB
        let batchDirectory = TempDirectory()
        let singleDirectory = TempDirectory()
        let batched = try openWriter(batchDirectory.data)
        let single = try openWriter(singleDirectory.data)
        defer {
            batched.close()
            single.close()
        }
        let outcomes = try batched.append(entries + [entries[17]])  // a duplicate inside the batch, too
        #expect(outcomes.count == 9_001 && outcomes.last == .duplicate(seq: 18))
        for entry in entries { _ = try single.append(entry) }
        #expect(batched.head.seq == 9_000 && batched.head.hash == single.head.hash)
        for n in stride(from: 1, through: 9_000, by: 7) {
            #expect(batched.seq(forIdempotencyKey: "notification-\(n)") == UInt64(n))
        }
        for subject in (0..<7).map({ "user:\($0)" }) + (0..<13).map({ "otid:\(2_000_000 + $0)" }) {
            let seqs = batched.seqs(forSubjectKey: subject)
            #expect(!seqs.isEmpty && seqs == single.seqs(forSubjectKey: subject))
        }
        #expect(try batched.append(entries).allSatisfy { if case .duplicate = $0 { true } else { false } })
        #expect(batched.head.seq == 9_000)
    }

    @Test func duplicatesAreRecognisedAcrossRestarts() throws {
        let temp = TempDirectory()
        do {
            let log = try openWriter(temp.data)
            try appendEach(log, 1...10)
            log.close()
        }
        let log = try openWriter(temp.data)
        defer { log.close() }
        #expect(try log.append(entry(4)) == .duplicate(seq: 4))
        #expect(try log.append(entry(11)).seq == 11)
        #expect(log.seq(forIdempotencyKey: "notification-9") == 9)
        #expect(log.seq(forIdempotencyKey: "never-seen") == nil)
    }

    @Test func recordedTimesNeverGoBackwards() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        defer { log.close() }
        let first = try log.append(entry(1, time: 5_000))
        let second = try log.append(entry(2, time: 4_000))
        #expect(first == .appended(seq: 1, recordedAt: 5_000))
        #expect(second == .appended(seq: 2, recordedAt: 5_000))
        #expect(log.headTime == 5_000)
    }

    @Test func subjectIndexFindsEveryRecordOfASubject() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        defer { log.close() }
        try appendEach(log, 1...50)
        let expected = (1...50).filter { $0 % 7 == 3 }.map { UInt64($0) }
        #expect(log.seqs(forSubjectKey: "user:3") == expected)
        #expect(try log.records(forSubjectKey: "user:3").map(\.seq) == expected)
        #expect(log.seqs(forSubjectKey: "user:unknown").isEmpty)
    }

    @Test func forEachVisitsRecordsInOrderFromASeq() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        defer { log.close() }
        try appendEach(log, 1...30)
        var seen: [UInt64] = []
        try log.forEach(from: 11) { seen.append($0.seq) }
        #expect(seen == Array(11...30))
    }

    @Test func segmentsRollAtTheirSizeAndStayReadable() throws {
        let temp = TempDirectory()
        do {
            let log = try openWriter(temp.data, options: LogOptions(segmentSize: 4096))
            try appendEach(log, 1...200, payloadSize: 100)
            log.close()
        }
        #expect(segmentPaths(temp.data).count > 3)
        let report = try EventLog.verify(at: temp.data)
        #expect(report.ok)
        #expect(report.headSeq == 200)
        let records = try allRecords(temp.data)
        #expect(records.map(\.seq) == Array(1...200))
        let log = try openWriter(temp.data, options: LogOptions(segmentSize: 4096))
        defer { log.close() }
        #expect(try log.append(entry(201)).seq == 201)
        #expect(try log.record(seq: 123).idempotencyKey == "notification-123")
    }

    @Test func theDirectoryIsBoundToOneEnvironmentAtItsFirstWrite() throws {
        let temp = TempDirectory()
        do {
            let log = try openWriter(temp.data)
            _ = try log.append(entry(1))
            log.close()
        }
        #expect(throws: LogError(.environmentMismatch, "")) {
            try EventLog.openWriter(at: temp.data, environment: "production")
        }
        let log = try EventLog.openWriter(at: temp.data, environment: nil)
        defer { log.close() }
        #expect(log.environment == "sandbox")
    }

    @Test func invalidEntriesAreRefusedBeforeAnythingIsWritten() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        defer { log.close() }
        #expect(throws: LogError(.invalidEntry, "")) {
            try log.append([entry(1), LogEntry(idempotencyKey: "", payload: [1])])
        }
        #expect(log.head.seq == 0)
    }

    @Test func manyThreadsAppendConcurrentlyWithFewerSyncsThanAppends() throws {
        let temp = TempDirectory()
        let counting = CountingFileSystem()
        let log = try openWriter(temp.data, fileSystem: counting)
        let threads = 8
        let perThread = 200
        let results = ResultBox()
        runThreads(threads) { thread in
            for i in 0..<perThread {
                let outcome = try? log.append(entry(thread * perThread + i + 1))
                results.add(outcome?.seq)
            }
        }
        let seqs = results.values.sorted()
        #expect(seqs == Array(1...UInt64(threads * perThread)))
        #expect(counting.syncs < threads * perThread)
        log.close()
        let report = try EventLog.verify(at: temp.data)
        #expect(report.ok && report.headSeq == UInt64(threads * perThread))
    }
}

@Suite struct WaitingTests {
    @Test func aLongPollWakesWhenARecordIsAppended() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        defer { log.close() }
        _ = try log.append(entry(1))
        #expect(log.waitForHead(after: 1, timeoutMillis: 50) == 1, "times out with nothing new")
        runThreads(2) { thread in
            if thread == 0 {
                usleep(50_000)
                _ = try? log.append(entry(2))
            } else {
                #expect(log.waitForHead(after: 1, timeoutMillis: 10_000) == 2)
            }
        }
    }

    @Test func aCheckpointLetsTheNextOpenSkipIndexing() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        try appendEach(log, 1...5)
        try log.checkpoint()
        let snapshot = try #require(DerivedFile.read(temp.data + "/index/keys.idx"))
        #expect(snapshot.coveredSeq == 5)
        #expect(snapshot.headHash == log.head.hash)
        log.close()
    }
}
