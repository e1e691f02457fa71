import LedgerCrypto
import LedgerStore
import LedgerSystem
import Testing

@testable import LedgerLog

#if canImport(Glibc)
    import Glibc
#endif

/// A group commit syncs the evidence packs while it writes and syncs its records, and acknowledges only once both
/// are durable. A power loss between the two syncs leaves records of the last, unacknowledged batch whose evidence
/// is gone: the writer's open cuts them, keeps every acknowledged record, and the chain verifies.
@Suite struct OverlappedSyncTests {
    /// `count` webhook-like entries from `first` on: each one's evidence stored without a sync, then all the
    /// records appended in one call that syncs the evidence along.
    func webhooks(_ log: EventLog, _ first: Int, count: Int = 1) throws -> [AppendOutcome] {
        let range = first..<(first + count)
        _ = try log.putEvidence(batch: range.map { body($0) }, durable: false)
        let records = range.map { n in
            var record = entry(n)
            record.payload = SHA256.hash(body(n))
            return record
        }
        return try log.append(records, syncingEvidenceFirst: true)
    }

    /// Every record's evidence is readable and intact.
    func everyReferencedPieceIsThere(_ log: EventLog) throws {
        try log.forEach { record throws in
            #expect(try log.evidence(record.payload) != nil, "the evidence of record \(record.seq)")
        }
    }

    /// Runs `body` on a thread of its own; the returned function waits for it and gives its result.
    func inBackground<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> () -> Result<T, any Error> {
        let slot = BackgroundResult<T>()
        let thread = try startThread(detached: false) { slot.value = Result { try body() } }
        return {
            joinThread(thread)
            return slot.value!
        }
    }

    /// What a power loss keeps of the evidence written after the last sync.
    enum Kept: CaseIterable, Sendable {
        /// None of it.
        case nothing
        /// A torn prefix: the first entry's header and part of its body.
        case tornPrefix
        /// All of its length, read as zeros.
        case zeros
    }

    @Test(arguments: Kept.allCases)
    func aPowerLossBetweenTheTwoSyncsCutsOnlyTheUnacknowledgedBatch(keeping kept: Kept) throws {
        let temp = TempDirectory()
        let crashed = TempDirectory()
        let fs = PowerLossFileSystem()
        let log = try openWriter(temp.data, fileSystem: fs)
        var acknowledged: [AppendOutcome] = []
        for n in 1...3 { acknowledged += try webhooks(log, n) }
        acknowledged += try webhooks(log, 4, count: 3)
        #expect(acknowledged.map(\.seq) == Array(1...6))

        // The next batch: its segment sync must return while its evidence sync is still held.
        fs.holdEvidenceSyncs()
        let pending = try inBackground { [self] in try webhooks(log, 7, count: 4) }
        let overlapped = fs.await { fs.segmentSyncsDuringHeldEvidenceSync > 0 && fs.evidenceSyncHeld }
        #expect(overlapped, "the segment was synced while the evidence sync was still running")
        #expect(log.head.seq == 6, "not acknowledged before its evidence is durable")
        switch kept {
        case .nothing: try fs.copyAsAfterPowerLoss(temp.data, to: crashed.data)
        case .tornPrefix:
            try fs.copyAsAfterPowerLoss(temp.data, to: crashed.data, keeping: Int64(EvidencePack.headerSize + 20))
        case .zeros: try fs.copyAsAfterPowerLoss(temp.data, to: crashed.data, keeping: 1 << 20, zeroed: true)
        }
        fs.release()
        let outcomes = try pending().get()
        #expect(outcomes.map(\.seq) == Array(7...10))
        log.close()

        // The crash left records 7–10 durable with their evidence gone: verify sees the missing evidence.
        let before = try EventLog.verify(at: crashed.data, evidenceReferences: payloadIsDigest)
        #expect(before.headSeq == 10)
        #expect(before.problem?.kind == (kept == .tornPrefix ? .damagedEvidence : .missingEvidence))

        let reopened = try openWriter(crashed.data)
        let cut = try #require(reopened.recovery)
        #expect(cut.headSeq == 6)
        #expect(reopened.head.seq == 6)
        #expect(cut.bytesCut > 0)
        #expect(fileSize(cut.savedAs) == cut.bytesCut)
        // Every acknowledged record is there, with its evidence; the cut batch is not.
        let records = try allRecords(crashed.data)
        #expect(records.map(\.idempotencyKey) == (1...6).map { "notification-\($0)" })
        try everyReferencedPieceIsThere(reopened)
        for n in 7...10 { #expect(try reopened.evidence(SHA256.hash(body(n))) == nil) }
        // Apple delivers the cut notifications again: they are new, and durable with their evidence.
        #expect(try webhooks(reopened, 7, count: 4).map(\.seq) == Array(7...10))
        try everyReferencedPieceIsThere(reopened)
        reopened.close()
        let after = try EventLog.verify(at: crashed.data, evidenceReferences: payloadIsDigest)
        #expect(after.ok, "\(after.problem.map { "\($0)" } ?? "")")
        #expect(after.headSeq == 10)
        #expect(try openWriter(crashed.data).recovery == nil)
    }

    /// A batch whose evidence sync fails is failed and cut off the segment again, though its records were synced.
    @Test func aFailedEvidenceSyncFailsTheBatchAndCutsItsRecords() throws {
        let temp = TempDirectory()
        let fs = FaultInjectingFileSystem()
        let log = try openWriter(temp.data, fileSystem: fs)
        _ = try webhooks(log, 1, count: 2)
        let segment = try #require(segmentPaths(temp.data).first)
        let size = fileSize(segment)
        fs.inject(Fault(.fsync, .error(EIO), pathContains: "/evidence/pack-", times: 1))
        #expect(throws: LogError(.io, "")) { try webhooks(log, 3, count: 2) }
        #expect(fs.firedCount == 1)
        #expect(fileSize(segment) == size)
        #expect(log.head.seq == 2)
        // The retry writes the evidence again before its sync, and the records after the head.
        #expect(try webhooks(log, 3, count: 2).map(\.seq) == [3, 4])
        log.close()
        let reopened = try openWriter(temp.data)
        #expect(reopened.recovery == nil)
        #expect(reopened.head.seq == 4)
        try everyReferencedPieceIsThere(reopened)
        reopened.close()
        #expect(try EventLog.verify(at: temp.data, evidenceReferences: payloadIsDigest).ok)
    }

    /// A batch of more records than may be written while their evidence syncs syncs the evidence first.
    @Test func aBatchAboveTheLimitSyncsTheEvidenceFirst() throws {
        let temp = TempDirectory()
        let fs = PowerLossFileSystem()
        let log = try openWriter(temp.data, fileSystem: fs)
        defer { log.close() }
        _ = try webhooks(log, 1)
        fs.holdEvidenceSyncs()
        let count = BatchWriter.maxOverlappedRecords + 1
        let pending = try inBackground { [self] in try webhooks(log, 2, count: count) }
        #expect(fs.await { fs.evidenceSyncHeld })
        usleep(200_000)
        #expect(fs.segmentSyncsDuringHeldEvidenceSync == 0)
        #expect(log.head.seq == 1)
        fs.release()
        #expect(try pending().get().count == count)
        #expect(log.head.seq == UInt64(1 + count))
    }

    /// Only the last batch can lack its evidence after a crash, so only the last records are looked at: a record
    /// further back whose evidence is missing (damage, not a crash) is left for `verify` to report, not cut.
    @Test func theOpenLooksAtTheLastRecordsOnly() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        var orphan = entry(0)
        orphan.payload = SHA256.hash(body(0))  // evidence never stored
        _ = try log.append(orphan)
        _ = try log.append((1...BatchWriter.maxOverlappedRecords).map { entry($0) })
        log.close()
        let reopened = try openWriter(temp.data)
        #expect(reopened.recovery == nil)
        #expect(reopened.head.seq == UInt64(1 + BatchWriter.maxOverlappedRecords))
        reopened.close()
        let report = try EventLog.verify(at: temp.data, evidenceReferences: payloadIsDigest)
        #expect(report.problem?.kind == .missingEvidence)
    }
}

/// What a thread of ``OverlappedSyncTests/inBackground(_:)`` returned.
final class BackgroundResult<T>: @unchecked Sendable {
    // Sendable: written by the thread before it ends, read only after joining it.
    var value: Result<T, any Error>?
}
