import LedgerCrypto
import LedgerStore
import LedgerSystem
import LedgerTesting
import Testing

@testable import LedgerCore
@testable import LedgerLog
@testable import LedgerService

/// The grouping of a log's records into components: on one thread or two, from the index files' links or from
/// the records' keys, and the damage it must find.
extension RebuildImageTests {
    @Test func groupingOnTwoThreadsGivesWhatOneThreadGives() throws {
        let writer = try ledger()
        defer { writer.close() }
        let log = try #require(writer.log as? EventLog)
        let image = try #require(try log.image())
        #expect(image.copiedByteCount == 0)
        let serial = try Ledger.componentMap(of: image, checkCRC: false, parallelFrom: .max)
        for checkCRC in [false, true] {
            let parallel = try Ledger.componentMap(of: image, checkCRC: checkCRC, parallelFrom: 1)
            #expect(parallel.componentOf == serial.componentOf)
            #expect(parallel.lastSeq == serial.lastSeq)
            #expect(parallel.sizes == serial.sizes)
        }
        #expect(serial.componentOf.count == Int(log.head.seq))
        #expect(serial.componentOf.contains(-1))
    }

    /// `rewritten`: the index files written by a second writer, which loaded the first one's grouped subject index
    /// and wrote its groups then the postings it added.
    @Test(arguments: [false, true])
    func theIndexFilesComponentsGroupAsTheRecordsKeysDo(rewritten: Bool) throws {
        do {
            let writer = try ledger()
            writer.close()  // the index files now cover the head
        }
        if rewritten {
            let writer = try Ledger.openWriter(at: directory.path, environment: .sandbox)
            _ = try writer.append([
                (RecordBuilders.link(originalTransactionId: "later", userId: 10_002, key: "later-link"), nil)
            ])
            writer.close()
        }
        let reader = try #require(try Ledger.openReader(at: directory.path).log as? EventLog)
        defer { reader.close() }
        let image = try #require(try reader.image())
        let fromKeys = try Ledger.componentMap(of: image, checkCRC: true)
        let (starts, members) = (fromKeys.recordComponents.starts, fromKeys.recordComponents.members)
        let unlisted = fromKeys.componentOf.indices.filter { fromKeys.componentOf[$0] < 0 }.map { UInt64($0 + 1) }
        #expect(!unlisted.isEmpty)
        func expectKeysGrouping(_ found: (components: RecordComponents, coveredSeq: UInt64)?) throws {
            let found = try #require(found)
            #expect(found.coveredSeq == reader.head.seq)
            #expect(found.components.starts == starts)
            #expect(found.components.members == members)
            #expect(found.components.unlisted == unlisted)
        }
        // From the subject index's links: the same grouping as the records' keys give.
        try expectKeysGrouping(reader.recordComponents())
        #expect(try #require(try Ledger.indexedComponents(of: image, in: reader)).members == members)

        // The links are not used when the file does not cover exactly the log: damaged, or behind the head.
        let path = directory.path + "/index/subjects.idx"
        let saved = try #require(try PosixFileSystem().readFile(path))
        var damaged = saved
        damaged[damaged.count - 5] ^= 0x10
        try PosixFileSystem().writeFileDurably(path, damaged)
        #expect(reader.withSubjectLinks { _ in true } == nil)
        #expect(reader.recordComponents() == nil)
        try PosixFileSystem().writeFileDurably(path, saved)
        #expect(reader.withSubjectLinks { _ in true } == true)
        let writer = try Ledger.openWriter(at: directory.path, environment: .sandbox)
        defer { writer.close() }
        _ = try writer.append([(Lifecycle.all[0].entries[0].record, nil)])
        _ = try writer.append([
            (RecordBuilders.link(originalTransactionId: "late", userId: 10_001, key: "late-link"), nil)
        ])
        let writerLog = try #require(writer.log as? EventLog)
        #expect(writerLog.withSubjectLinks { _ in true } == nil)
        #expect(writerLog.recordComponents() == nil)
        #expect(try writer.rebuildProjections(at: at) == referenceSummary(writer))
    }

    /// Earlier versions kept the records' components in `index/components.idx`: a reader ignores such a file
    /// (whatever it holds) and the writer deletes it when it next writes the index files.
    @Test func aComponentsFileOfAnEarlierVersionIsIgnoredAndDeleted() throws {
        do {
            let writer = try ledger()
            writer.close()
        }
        let path = directory.path + "/index/components.idx"
        #expect(try PosixFileSystem().stat(path) == nil)
        let reader = try #require(try Ledger.openReader(at: directory.path).log as? EventLog)
        let good = try #require(reader.recordComponents()).components
        let (head, hash) = reader.head
        // Every record in one component: a grouping the log's keys do not give.
        var bytes: [UInt8] = []
        bytes.appendLE(UInt64(1))
        bytes.appendLE(UInt32(0))
        bytes.appendLE(UInt32(head))
        for seq in 0..<UInt32(head) { bytes.appendLE(seq) }
        try DerivedFile.write(
            DerivedFile.Snapshot(coveredSeq: head, headHash: hash, bytes: bytes), to: path,
            fileSystem: PosixFileSystem())
        #expect(reader.recordComponents()?.components == good)
        reader.close()
        let writer = try Ledger.openWriter(at: directory.path, environment: .sandbox)
        let outcomes = try writer.append([
            (RecordBuilders.link(originalTransactionId: "late", userId: 10_001, key: "late-link"), nil)
        ])
        #expect(outcomes.count == 1)
        writer.close()
        #expect(try PosixFileSystem().stat(path) == nil)
    }

    @Test(arguments: [false, true])
    func groupingOnTwoThreadsFindsADamagedKeylessRecordInEitherHalf(secondHalf: Bool) throws {
        let writer = try ledger()
        defer { writer.close() }
        let log = try #require(writer.log as? EventLog)
        let map = try Ledger.componentMap(of: try #require(try log.image()), checkCRC: false, parallelFrom: .max)
        let middle = Int(log.head.seq) / 2
        let keyless = map.componentOf.indices.filter { map.componentOf[$0] < 0 && ($0 >= middle) == secondHalf }
        let victim = try log.record(seq: UInt64(try #require(keyless.first)) + 1)
        try flipPayloadByte(of: victim)
        let image = try #require(try log.image())
        do {
            _ = try Ledger.componentMap(of: image, checkCRC: false, parallelFrom: 1)
            Issue.record("the grouping passed over damaged record \(victim.seq)")
        } catch {
            #expect(error.code == .damaged, "\(error)")
            #expect(error.message.contains("\(victim.seq)"), "\(error)")
        }
    }
}
