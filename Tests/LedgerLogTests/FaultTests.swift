import LedgerStore
import LedgerSystem
import Testing

@testable import LedgerLog

#if canImport(Glibc)
    import Glibc
#endif

/// Faults from the injectable file layer: the append fails clearly, nothing partial survives, and appends work
/// again once the fault clears.
@Suite struct FaultTests {
    struct Case: Sendable, CustomStringConvertible {
        var operation: Fault.Operation
        var errno: Int32
        var code: LogError.Code
        var description: String { "\(operation) \(errno == ENOSPC ? "ENOSPC" : "EIO")" }
    }

    static let cases: [Case] = [
        Case(operation: .write, errno: ENOSPC, code: .noSpace),
        Case(operation: .write, errno: EIO, code: .io),
        Case(operation: .fsync, errno: ENOSPC, code: .noSpace),
        Case(operation: .fsync, errno: EIO, code: .io),
    ]

    @Test(arguments: cases)
    func aFailedAppendLeavesNothingAndTheNextOneWorks(_ fault: Case) throws {
        let temp = TempDirectory()
        let fs = FaultInjectingFileSystem()
        let log = try openWriter(temp.data, fileSystem: fs)
        try appendEach(log, 1...5)
        // A short write first, so a partial batch really reaches the file before the failure.
        fs.inject(Fault(.write, .shortWrite(maxBytes: 50), pathContains: ".seg", times: 1))
        fs.inject(Fault(fault.operation, .error(fault.errno), pathContains: ".seg"))
        do {
            _ = try log.append([entry(6), entry(7), entry(8)])
            Issue.record("the append must fail")
        } catch {
            #expect(error.code == fault.code)
            #expect(error.message.contains(fault.code == .noSpace ? "free some space" : "check the device"))
        }
        #expect(log.head.seq == 5)
        #expect(throws: LogError.self) { try log.append(entry(9)) }
        fs.clearFaults()
        #expect(try log.append(entry(10)).seq == 6)
        log.close()

        let records = try allRecords(temp.data)
        #expect(records.map(\.idempotencyKey) == (1...5).map { "notification-\($0)" } + ["notification-10"])
        #expect(try EventLog.verify(at: temp.data).ok)
    }

    /// A batch of several megabytes is handed to the file chunk by chunk from a helper thread: a write failing
    /// after earlier chunks reached the file still leaves nothing, and the next append works.
    @Test(arguments: [0, 1, 2])
    func aFailedChunkOfABigBatchLeavesNothing(after chunks: Int) throws {
        let temp = TempDirectory()
        let fs = FaultInjectingFileSystem()
        let log = try openWriter(temp.data, fileSystem: fs)
        try appendEach(log, 1...5)
        let big = (6...9_000).map { entry($0, payloadSize: 600) }  // about 5.8 MB
        fs.inject(Fault(.write, .error(EIO), pathContains: ".seg", after: chunks, times: 1))
        #expect(throws: LogError.self) { try log.append(big) }
        #expect(log.head.seq == 5)
        #expect(log.seq(forIdempotencyKey: "notification-6") == nil)
        let outcomes = try log.append(big)
        #expect(outcomes.first?.seq == 6)
        #expect(log.head.seq == 9_000)
        log.close()
        let records = try allRecords(temp.data)
        #expect(records.map(\.idempotencyKey) == (1...9_000).map { "notification-\($0)" })
        #expect(try EventLog.verify(at: temp.data).ok)
    }

    @Test func aFailedAppendWhoseCutAlsoFailsIsCutByTheNextAppend() throws {
        let temp = TempDirectory()
        let fs = FaultInjectingFileSystem()
        let log = try openWriter(temp.data, fileSystem: fs)
        try appendEach(log, 1...3)
        fs.inject(Fault(.fsync, .error(EIO), pathContains: ".seg"))
        fs.inject(Fault(.truncate, .error(EIO)))
        #expect(throws: LogError(.io, "")) { try log.append(entry(4)) }
        fs.clearFaults()
        #expect(try log.append(entry(5)).seq == 4)
        log.close()
        #expect(try allRecords(temp.data).map(\.idempotencyKey).last == "notification-5")
        #expect(try EventLog.verify(at: temp.data).ok)
    }

    @Test func aWriterThatDiesAfterAFailedAppendLeavesNoPartialRecord() throws {
        let temp = TempDirectory()
        let fs = FaultInjectingFileSystem()
        let log = try openWriter(temp.data, fileSystem: fs)
        try appendEach(log, 1...3)
        fs.inject(Fault(.write, .shortWrite(maxBytes: 30), pathContains: ".seg", times: 1))
        fs.inject(Fault(.write, .error(ENOSPC), pathContains: ".seg"))
        fs.inject(Fault(.truncate, .error(EIO)))
        #expect(throws: LogError(.noSpace, "")) { try log.append(entry(4)) }
        log.close()  // as if the process died here: the partial frame is still in the file
        let reopened = try openWriter(temp.data)
        defer { reopened.close() }
        #expect(reopened.head.seq == 3)
        #expect(reopened.recovery?.bytesCut == 30)
        #expect(try reopened.append(entry(4)).seq == 4)
    }

    @Test func shortWritesAreCompletedNotFailed() throws {
        let temp = TempDirectory()
        let fs = FaultInjectingFileSystem()
        fs.inject(Fault(.write, .shortWrite(maxBytes: 7)))
        let log = try openWriter(temp.data, fileSystem: fs)
        try appendEach(log, 1...20)
        log.close()
        #expect(fs.firedCount > 20)
        #expect(try allRecords(temp.data).count == 20)
        #expect(try EventLog.verify(at: temp.data).ok)
    }

    @Test func aFailedSegmentCreationFailsTheAppendClearly() throws {
        let temp = TempDirectory()
        let fs = FaultInjectingFileSystem()
        fs.inject(Fault(.open, .error(EIO), pathContains: ".seg", times: 1))
        let log = try openWriter(temp.data, fileSystem: fs)
        defer { log.close() }
        do {
            _ = try log.append(entry(1))
            Issue.record("the append must fail")
        } catch {
            #expect(error.code == .io)
            #expect(error.message.contains("creating segment"))
        }
        #expect(try log.append(entry(1)).seq == 1)
    }

    @Test func aFailedOpenNamesTheFile() throws {
        let temp = TempDirectory()
        do {
            let log = try openWriter(temp.data)
            try appendEach(log, 1...2)
            log.close()
        }
        let fs = FaultInjectingFileSystem()
        fs.inject(Fault(.open, .error(EIO), pathContains: ".seg"))
        do {
            _ = try EventLog.openReader(at: temp.data, fileSystem: fs)
            Issue.record("opening must fail")
        } catch {
            #expect(error.code == .io)
            #expect(error.message.contains("00000000000000000001.seg"))
        }
    }
}
