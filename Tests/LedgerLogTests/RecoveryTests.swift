import LedgerStore
import LedgerSystem
import Testing

@testable import LedgerLog

#if canImport(Glibc)
    import Glibc
#endif

/// Crash recovery: a torn tail is cut and kept aside; anything else is refused, never guessed at.
@Suite struct RecoveryTests {
    /// Builds a log of `count` single-record appends and returns the last segment's bytes and the last
    /// record's offset.
    private func makeLog(_ dir: String, count: Int) throws -> (bytes: [UInt8], lastOffset: Int) {
        let log = try openWriter(dir)
        try appendEach(log, 1...count)
        let last = try log.record(seq: UInt64(count))
        log.close()
        return (readBytes(segmentPaths(dir).last!), Int(last.offset))
    }

    @Test func truncatingAnywhereInsideTheLastRecordRecoversEverythingBeforeIt() throws {
        let template = TempDirectory()
        let (bytes, lastOffset) = try makeLog(template.data, count: 5)
        let expectedHead = try allRecords(template.data)[3].hash
        for cut in lastOffset..<bytes.count {
            let temp = TempDirectory()
            _ = try makeLog(temp.data, count: 5)
            writeBytes(segmentPaths(temp.data)[0], Array(bytes[0..<cut]))
            // The index files, written at close, covered record 5: verify names what is wrong before any reopen.
            let before = try EventLog.verify(at: temp.data)
            #expect(before.problem?.kind == (cut == lastOffset ? .lostRecords : .tornTail), "cut at \(cut)")
            #expect(before.problem?.seq == 5)
            let log = try openWriter(temp.data)
            #expect(log.lostRecords == LostRecords(coveredSeq: 5, coveredHash: bytes.suffix(32), headSeq: 4))
            #expect(log.head.seq == 4, "cut at \(cut)")
            #expect(log.head.hash == expectedHead)
            if cut > lastOffset {
                #expect(log.recovery?.bytesCut == Int64(cut - lastOffset))
                let saved = readBytes(log.recovery!.savedAs)
                #expect(saved == Array(bytes[lastOffset..<cut]), "the cut bytes are kept aside")
            }
            #expect(try log.append(entry(99)).seq == 5)
            log.close()
            let report = try EventLog.verify(at: temp.data)
            #expect(report.ok, "cut at \(cut): \(report.problem?.message ?? "")")
            #expect(report.headSeq == 5)
        }
    }

    @Test func aDeletedLastSegmentIsReportedAsLostRecordsAndTheWriterGoesOnAfterSayingSo() throws {
        let temp = TempDirectory()
        let writer = try openWriter(temp.data, options: LogOptions(segmentSize: 4096))
        try appendEach(writer, 1...60, payloadSize: 200)
        let segments = segmentPaths(temp.data)
        #expect(segments.count > 2)
        let lastFirstSeq = UInt64(segments.last!.split(separator: "/").last!.prefix(20))!
        let (headSeq, headHash) = writer.head
        writer.close()
        unlink(segments.last!)

        let report = try EventLog.verify(at: temp.data)
        #expect(report.problem?.kind == .lostRecords)
        #expect(report.problem?.seq == lastFirstSeq)
        #expect(report.problem?.message.contains("records \(lastFirstSeq)…\(headSeq)") == true)
        let reopened = try openWriter(temp.data, options: LogOptions(segmentSize: 4096))
        #expect(
            reopened.lostRecords
                == LostRecords(coveredSeq: headSeq, coveredHash: headHash, headSeq: lastFirstSeq - 1))
        #expect(try EventLog.verify(at: temp.data).ok, "reported once: the index files now cover the log as it is")
        #expect(try reopened.append(entry(1_000)).seq == lastFirstSeq)
        reopened.close()
        let again = try openWriter(temp.data, options: LogOptions(segmentSize: 4096))
        #expect(again.lostRecords == nil)
        again.close()
    }

    @Test func garbageAfterTheLastRecordIsATornTail() throws {
        let temp = TempDirectory()
        let (bytes, _) = try makeLog(temp.data, count: 3)
        writeBytes(segmentPaths(temp.data)[0], bytes + [UInt8](repeating: 0, count: 300))
        let report = try EventLog.verify(at: temp.data)
        #expect(report.problem?.kind == .tornTail)
        #expect(report.problem?.seq == 4)
        let repaired = try EventLog.repair(at: temp.data)
        #expect(repaired.headSeq == 3)
        #expect(repaired.cut?.bytesCut == 300)
        #expect(try EventLog.verify(at: temp.data).ok)
        #expect(readBytes(segmentPaths(temp.data)[0]) == bytes)
    }

    @Test func damageBeforeTheTailIsRefusedNamingSegmentOffsetAndRecord() throws {
        let temp = TempDirectory()
        let (bytes, _) = try makeLog(temp.data, count: 10)
        let reader = try EventLog.openReader(at: temp.data)
        let victim = try reader.record(seq: 4)
        reader.close()
        var damaged = bytes
        damaged[Int(victim.offset) + 30] ^= 0x40
        writeBytes(segmentPaths(temp.data)[0], damaged)

        let report = try EventLog.verify(at: temp.data)
        #expect(report.problem?.kind == .damagedRecord)
        #expect(report.problem?.seq == 4)
        #expect(report.problem?.offset == victim.offset)
        #expect(report.problem?.segment == victim.segment)

        do {
            _ = try openWriter(temp.data)
            Issue.record("opening a damaged log for write must fail")
        } catch let error as LogError {
            #expect(error.code == .damaged)
            #expect(error.message.contains(victim.segment) && error.message.contains("byte \(victim.offset)"))
            #expect(error.message.contains("record 4"))
        }
        #expect(throws: LogError(.damaged, "")) { try EventLog.repair(at: temp.data) }
        #expect(readBytes(segmentPaths(temp.data)[0]) == damaged, "nothing was cut")
    }

    @Test func aSegmentTornWhileBeingCreatedIsMovedAside() throws {
        let temp = TempDirectory()
        _ = try makeLog(temp.data, count: 3)
        let torn = temp.data + "/log/" + "00000000000000000004.seg"
        writeBytes(torn, Array("LEDGRSEG".utf8) + [1, 0])
        let log = try openWriter(temp.data)
        defer { log.close() }
        #expect(log.head.seq == 3)
        #expect(log.recovery?.offset == 0)
        #expect(segmentPaths(temp.data).count == 1)
        #expect(try log.append(entry(4)).seq == 4)
    }

    @Test func aMissingSegmentIsAGapNotATail() throws {
        let temp = TempDirectory()
        do {
            let log = try openWriter(temp.data, options: LogOptions(segmentSize: 4096))
            try appendEach(log, 1...100, payloadSize: 100)
            log.close()
        }
        let segments = segmentPaths(temp.data)
        #expect(segments.count >= 3)
        _ = try? PosixFileSystem().unlink(segments[1])
        let report = try EventLog.verify(at: temp.data)
        #expect(report.problem?.kind == .sequenceGap)
        #expect(throws: LogError(.damaged, "")) { try openWriter(temp.data) }
    }
}
