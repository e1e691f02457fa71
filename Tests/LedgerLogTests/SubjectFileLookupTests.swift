import Testing

@testable import LedgerLog

/// A reader's first subject look-ups are answered from the subject index file (`index/subjects.idx`) without
/// loading its indexes, give exactly what the loaded indexes give, and never answer from a file that does not cover
/// the head or is damaged.
@Suite struct SubjectFileLookupTests {
    /// A closed writer's log of 300 records over 7 users (its index files cover the head).
    func writtenLog(_ dir: String) throws {
        let log = try openWriter(dir)
        try appendEach(log, 1...300)
        log.close()
    }

    func seqs(_ log: EventLog, _ key: String) throws -> [UInt64] {
        var seqs: [UInt64] = []
        try log.forEachRecord(forSubjectKey: key) { seqs.append($0.seq) }
        return seqs
    }

    func indexesLoaded(_ log: EventLog) -> Bool { log.lock.withLock { log.state.indexes.ready } }

    /// The seqs of `user:3` among records 1…`count` (record n names user n mod 7).
    func userThree(through count: Int) -> [UInt64] {
        var seqs: [UInt64] = []
        for n in 1...count where n % 7 == 3 { seqs.append(UInt64(n)) }
        return seqs
    }

    @Test func theFirstLookupsReadTheFileAndAgreeWithTheLoadedIndexes() throws {
        let temp = TempDirectory()
        try writtenLog(temp.data)
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        let keys = ["user:3", "otid:2000005", "user:none"]
        let fromFile = try keys.map { try seqs(reader, $0) }
        #expect(!indexesLoaded(reader), "three look-ups are answered from the file")
        #expect(fromFile[0] == userThree(through: 300))
        #expect(fromFile[2].isEmpty)
        // The fourth is the last from the file; the fifth loads the indexes, which answer the same.
        _ = try seqs(reader, "user:4")
        #expect(!indexesLoaded(reader))
        let loaded = try keys.map { try seqs(reader, $0) }
        #expect(indexesLoaded(reader))
        #expect(loaded == fromFile)
    }

    @Test func aFileBehindTheHeadIsNotUsed() throws {
        let temp = TempDirectory()
        try writtenLog(temp.data)
        // Records appended after the index files were written, by a writer that is killed (its files stay behind).
        let writer = try openWriter(temp.data)
        try appendEach(writer, 301...310)
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        let seqs = try seqs(reader, "user:3")
        #expect(indexesLoaded(reader), "the file covers 300 of 310 records: the indexes are loaded")
        #expect(seqs == userThree(through: 310))
        writer.close()
    }

    @Test func aDamagedFileIsNotUsed() throws {
        let temp = TempDirectory()
        try writtenLog(temp.data)
        let path = temp.data + "/index/subjects.idx"
        var bytes = readBytes(path)
        bytes[bytes.count - 20] ^= 0x40
        writeBytes(path, bytes)
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        let seqs = try seqs(reader, "user:3")
        #expect(indexesLoaded(reader), "the checksum fails: the indexes are rebuilt from the log")
        #expect(seqs == userThree(through: 300))
    }
}
