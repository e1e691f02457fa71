import LedgerStore
import LedgerSystem
import Testing

@testable import LedgerLog

/// A reader's open takes the records `index/positions.idx` lists from it instead of walking them: the same log,
/// the same answers, whatever state the file is in.
@Suite struct PositionsCheckpointTests {
    private let small = LogOptions(segmentSize: 4096)

    /// A log of several segments: 1…60 appended and closed (the positions file covers them), then 61…75 by a
    /// writer left open (the checkpoint is behind the head).
    private func makeLog(_ dir: String) throws -> EventLog {
        do {
            let log = try openWriter(dir, options: small)
            try appendEach(log, 1...60, payloadSize: 200)
            log.close()
        }
        let log = try openWriter(dir, options: small)
        try appendEach(log, 61...75, payloadSize: 200)
        return log
    }

    /// What a fresh reader sees: its head and every record read by seq.
    private func readerView(_ dir: String) throws -> [String] {
        let reader = try EventLog.openReader(at: dir)
        defer { reader.close() }
        var seen = ["head \(reader.head.seq) \(reader.head.hash)"]
        for seq in 1...reader.head.seq {
            let record = try reader.record(seq: seq)
            seen.append("\(record.seq) \(record.idempotencyKey) \(record.hash)")
        }
        return seen
    }

    private var positions: (TempDirectory) -> String { { $0.data + "/index/positions.idx" } }

    @Test func aReaderSeesWhatAWalkOfTheWholeLogSees() throws {
        let temp = TempDirectory()
        let writer = try makeLog(temp.data)
        defer { writer.close() }
        #expect(segmentPaths(temp.data).count > 3)
        let file = try #require(DerivedFile.read(positions(temp)))
        #expect(file.coveredSeq == 60)
        let checkpointed = try readerView(temp.data)
        #expect(checkpointed.first == "head 75 \(writer.head.hash)")
        #expect(checkpointed.count == 76)
        try PosixFileSystem().unlink(positions(temp))
        #expect(try readerView(temp.data) == checkpointed)
    }

    @Test(arguments: ["damaged", "garbage", "another history", "a record cut off"])
    func aCheckpointThatDoesNotMatchIsNotUsed(_ change: String) throws {
        let temp = TempDirectory()
        let writer = try makeLog(temp.data)
        defer { writer.close() }
        let walked: [String]
        do {
            let saved = readBytes(positions(temp))
            try PosixFileSystem().unlink(positions(temp))
            walked = try readerView(temp.data)
            writeBytes(positions(temp), saved)
        }
        switch change {
        case "damaged":
            var bytes = readBytes(positions(temp))
            bytes[bytes.count - 3] ^= 0x40
            writeBytes(positions(temp), bytes)
        case "garbage":
            writeBytes(positions(temp), Array("not a positions file".utf8))
        case "another history":
            // The same records appended at other times: every size and offset lines up, no hash does.
            let other = TempDirectory()
            do {
                let log = try EventLog.openWriter(
                    at: other.data, environment: "sandbox", options: small,
                    clock: steppingClock(from: 1_800_000_000_000))
                try appendEach(log, 1...60, payloadSize: 200)
                log.close()
            }
            writeBytes(positions(temp), readBytes(positions(other)))
        default:
            // The positions file lists a record the segment no longer holds in whole.
            let segments = segmentPaths(temp.data)
            let first = segments[0]
            let bytes = readBytes(first)
            writeBytes(first, Array(bytes.dropLast(10)))
        }
        if change == "a record cut off" {
            // A record missing in the middle of the log: the reader refuses, as a walk of the whole log does.
            #expect(throws: LogError.self) { try EventLog.openReader(at: temp.data) }
            #expect(try !EventLog.verify(at: temp.data).ok)
        } else {
            #expect(try readerView(temp.data) == walked)
        }
    }

    /// A positions file rewritten with any one byte changed and its checksum recomputed (a tampered derived
    /// file): a reader never hands out other records than the log's. It opens as a walk would, or a read of a
    /// record whose position is wrong fails as damage.
    @Test func aRewrittenCheckpointNeverChangesARecordRead() throws {
        let temp = TempDirectory()
        let writer = try makeLog(temp.data)
        defer { writer.close() }
        let original = try #require(DerivedFile.read(positions(temp)))
        try PosixFileSystem().unlink(positions(temp))
        let walked = try readerView(temp.data)
        var random = SystemRandomNumberGenerator()
        var refused = 0
        for round in 0..<300 {
            var bytes = original.bytes
            let at = round < bytes.count ? round : Int.random(in: 0..<bytes.count, using: &random)
            bytes[at] ^= UInt8(1) << UInt8(round % 8)
            try DerivedFile.write(
                DerivedFile.Snapshot(coveredSeq: original.coveredSeq, headHash: original.headHash, bytes: bytes),
                to: positions(temp))
            do {
                #expect(try readerView(temp.data) == walked, "byte \(at)")
            } catch let error as LogError {
                #expect(error.code == .damaged, "byte \(at): \(error)")
                refused += 1
            }
        }
        // Most changes are caught where the file is checked (its rules, the listed records' hashes).
        #expect(refused < 150)
    }

    @Test func aDamagedRecordTheCheckpointListsIsFoundWhenReadAndByVerify() throws {
        let temp = TempDirectory()
        do {
            let log = try openWriter(temp.data, options: small)
            try appendEach(log, 1...60, payloadSize: 200)
            log.close()
        }
        // Flip a payload byte of record 3 (in the first segment, not its last record).
        let reader = try EventLog.openReader(at: temp.data)
        let three = try reader.record(seq: 3)
        reader.close()
        let first = segmentPaths(temp.data)[0]
        var bytes = readBytes(first)
        let at = try #require(findBytes(bytes, three.payload))
        bytes[at] ^= 0x01
        writeBytes(first, bytes)

        let opened = try EventLog.openReader(at: temp.data)
        defer { opened.close() }
        #expect(opened.head.seq == 60)
        #expect(throws: LogError.self) { try opened.record(seq: 3) }
        #expect(try opened.record(seq: 4).seq == 4)
        var scanned = 0
        #expect(throws: LogError.self) { try opened.forEachView { _, _, _ in scanned += 1 } }
        #expect(scanned == 2)
        let report = try EventLog.verify(at: temp.data)
        #expect(report.problem?.seq == 3)
    }

    @Test func theWriterWritesTheCheckpointWithItsIndexFiles() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data, options: LogOptions(segmentSize: 4096, checkpointInterval: 20))
        try appendEach(log, 1...25, payloadSize: 200)
        // The maintenance worker writes the checkpoint of record 20 while the appends go on: its turn ends.
        log.lock.withLock { log.stopMaintenanceLocked() }
        #expect(DerivedFile.read(positions(temp))?.coveredSeq == 20)
        #expect(log.lock.withLock { log.state.indexes.coveredSeq } == 20)
        log.close()
        #expect(DerivedFile.read(positions(temp))?.coveredSeq == 25)
    }

    private func findBytes(_ haystack: [UInt8], _ needle: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start] == needle[0] && Array(haystack[start..<(start + needle.count)]) == needle {
            return start
        }
        return nil
    }
}
