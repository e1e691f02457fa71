import LedgerCrypto
import LedgerStore
import LedgerSystem
import Testing

@testable import LedgerLog

/// Every altered byte is detected, and the hash chain catches rewrites that fix up the checksum.
@Suite struct TamperTests {
    private func makeLog(_ dir: String, count: Int = 100) throws -> [LogRecord] {
        let log = try openWriter(dir)
        try appendEach(log, 1...count, payloadSize: 12)
        log.close()
        return try allRecords(dir)
    }

    /// The record whose frame holds byte `offset` (nil for the segment header).
    private func owner(of offset: Int, in records: [LogRecord], fileSize: Int) -> UInt64? {
        var owner: UInt64?
        for record in records where Int(record.offset) <= offset { owner = record.seq }
        return offset < 128 ? nil : owner
    }

    /// Every byte of the segment, in 8 interleaved shares that run in parallel.
    @Test(arguments: 0..<8)
    func everySingleByteFlipIsDetectedNamingTheRightRecord(share: Int) throws {
        let temp = TempDirectory()
        let records = try makeLog(temp.data)
        let path = segmentPaths(temp.data)[0]
        let original = readBytes(path)
        for offset in stride(from: share, to: original.count, by: 8) {
            var flipped = original
            flipped[offset] ^= 0x5A
            writeBytes(path, flipped)
            let report = try EventLog.verify(at: temp.data)
            let problem = try #require(report.problem, "a flip at byte \(offset) went unnoticed")
            if let seq = owner(of: offset, in: records, fileSize: original.count) {
                #expect(problem.seq == seq, "flip at \(offset): \(problem.message)")
                #expect(problem.offset == records[Int(seq) - 1].offset, "flip at \(offset)")
            } else {
                #expect(problem.offset == 0, "flip in the segment header at \(offset)")
            }
        }
        writeBytes(path, original)
        #expect(try EventLog.verify(at: temp.data).ok)
    }

    /// Rewrites record `seq`'s payload in place and recomputes its CRC, as a careful forger would.
    private func forge(_ bytes: inout [UInt8], _ record: LogRecord, recomputeHash previous: [UInt8]? = nil) {
        let start = Int(record.offset)
        let length = Int(bytes[start]) | Int(bytes[start + 1]) << 8 | Int(bytes[start + 2]) << 16
        let end = start + 8 + length
        let payloadStart = end - 32 - record.payload.count
        for i in payloadStart..<(end - 32) { bytes[i] = 0x41 }
        if let previous {
            var hasher = SHA256()
            hasher.update(previous)
            hasher.update(Array(bytes[(start + 8)..<(end - 32)]))
            bytes.replaceSubrange((end - 32)..<end, with: hasher.finalize())
        }
        let crc = CRC32C.update(CRC32C.checksum(Array(bytes[start..<(start + 4)])), bytesPointer(bytes, start + 8, end))
        bytes[start + 4] = UInt8(crc & 0xFF)
        bytes[start + 5] = UInt8((crc >> 8) & 0xFF)
        bytes[start + 6] = UInt8((crc >> 16) & 0xFF)
        bytes[start + 7] = UInt8(crc >> 24)
    }

    private func bytesPointer(_ bytes: [UInt8], _ from: Int, _ to: Int) -> UnsafeRawBufferPointer {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: to - from, alignment: 1)
        copy.copyBytes(from: bytes[from..<to])
        return UnsafeRawBufferPointer(copy)
    }

    @Test func aRewrittenPayloadWithItsCRCRecomputedBreaksTheChain() throws {
        let temp = TempDirectory()
        let records = try makeLog(temp.data)
        let path = segmentPaths(temp.data)[0]
        var bytes = readBytes(path)
        forge(&bytes, records[41])
        writeBytes(path, bytes)
        let report = try EventLog.verify(at: temp.data)
        #expect(report.problem?.kind == .chainBroken)
        #expect(report.problem?.seq == 42)
        // Repair recomputes the whole chain: a rewrite is not a torn tail, and nothing is cut.
        do {
            _ = try EventLog.repair(at: temp.data)
            Issue.record("repair must refuse a rewritten record")
        } catch {
            #expect(error.code == .damaged)
            #expect(error.message.contains("record 42"))
        }
        #expect(readBytes(path) == bytes, "nothing was cut")
    }

    @Test func repairRefusesARewrittenLastRecord() throws {
        let temp = TempDirectory()
        let records = try makeLog(temp.data)
        let path = segmentPaths(temp.data)[0]
        var bytes = readBytes(path)
        forge(&bytes, records[records.count - 1])
        writeBytes(path, bytes)
        #expect(throws: LogError(.damaged, "")) { try EventLog.repair(at: temp.data) }
        #expect(readBytes(path) == bytes, "nothing was cut")
    }

    @Test func aRewriteWithTheHashRecomputedBreaksTheNextLink() throws {
        let temp = TempDirectory()
        let records = try makeLog(temp.data)
        let path = segmentPaths(temp.data)[0]
        var bytes = readBytes(path)
        forge(&bytes, records[41], recomputeHash: records[40].hash)
        writeBytes(path, bytes)
        let report = try EventLog.verify(at: temp.data)
        #expect(report.problem?.kind == .chainBroken)
        #expect(report.problem?.seq == 43)
    }

    @Test func verifyAgainstAPinnedHeadFailsAfterAnyRewriteOfHistory() throws {
        let temp = TempDirectory()
        let records = try makeLog(temp.data, count: 20)
        let pinned = records.last!.hash
        #expect(try EventLog.verify(at: temp.data, expectHead: pinned).ok)
        #expect(try EventLog.verify(at: temp.data, expectHead: records[9].hash, expectSeq: 10).ok)
        // A forger rewrites record 5 and recomputes every later hash and CRC: the chain is internally consistent.
        let path = segmentPaths(temp.data)[0]
        var bytes = readBytes(path)
        var previous = records[3].hash
        for record in records[4...] {
            var forged = record
            if record.seq == 5 { forged.payload = [UInt8](repeating: 0x41, count: record.payload.count) }
            rewrite(&bytes, record, payload: forged.payload, previous: previous)
            previous = hashOf(bytes, record)
        }
        writeBytes(path, bytes)
        #expect(try EventLog.verify(at: temp.data).ok, "a consistent rewrite passes without a pin")
        let report = try EventLog.verify(at: temp.data, expectHead: pinned)
        #expect(report.problem?.kind == .headMismatch)
        #expect(try EventLog.verify(at: temp.data, expectHead: records[9].hash, expectSeq: 10).ok == false)
    }

    private func rewrite(_ bytes: inout [UInt8], _ record: LogRecord, payload: [UInt8], previous: [UInt8]) {
        let start = Int(record.offset)
        let length = Int(bytes[start]) | Int(bytes[start + 1]) << 8
        let end = start + 8 + length
        bytes.replaceSubrange((end - 32 - payload.count)..<(end - 32), with: payload)
        var hasher = SHA256()
        hasher.update(previous)
        hasher.update(Array(bytes[(start + 8)..<(end - 32)]))
        bytes.replaceSubrange((end - 32)..<end, with: hasher.finalize())
        let crc = CRC32C.update(CRC32C.checksum(Array(bytes[start..<(start + 4)])), bytesPointer(bytes, start + 8, end))
        for i in 0..<4 { bytes[start + 4 + i] = UInt8((crc >> (8 * UInt32(i))) & 0xFF) }
    }

    private func hashOf(_ bytes: [UInt8], _ record: LogRecord) -> [UInt8] {
        let start = Int(record.offset)
        let length = Int(bytes[start]) | Int(bytes[start + 1]) << 8
        let end = start + 8 + length
        return Array(bytes[(end - 32)..<end])
    }
}
