import LedgerCrypto
import LedgerStore
import LedgerSystem
import Testing

@testable import LedgerLog

#if canImport(Glibc)
    import Glibc
#endif

/// Evidence packs after a crash, damage or a failing disk: a torn tail is cut on the writer's open, damage before
/// it is reported by `verify` and reads, and a failed write or sync loses nothing a record refers to.
@Suite struct EvidencePackRecoveryTests {
    /// Writes A and B durably, each referenced by a record, then C; returns the pack, the size through B and the
    /// full size.
    func threePieces(_ dir: String) throws -> (pack: String, throughB: Int64, full: Int64) {
        let log = try openWriter(dir)
        defer { log.close() }
        for n in 1...2 {
            _ = try log.putEvidence(batch: [body(n)], durable: false)
            var record = entry(n)
            record.payload = SHA256.hash(body(n))
            _ = try log.append([record], syncingEvidenceFirst: true)
        }
        _ = try log.putEvidence(body(3))
        let pack = try #require(packPaths(dir).first)
        let throughB = try #require(log.evidenceLocation(SHA256.hash(body(3)))).offset
        return (pack, throughB, fileSize(pack))
    }

    /// Every record's evidence is readable.
    func everyReferencedPieceIsThere(_ log: EventLog) throws {
        try log.forEach { record throws in
            let found = try log.evidence(record.payload)
            #expect(found != nil, "the evidence of record \(record.seq)")
        }
    }

    @Test func aTornTailAtEveryOffsetOfTheLastEntryIsCut() throws {
        // Kept to the end: a temporary directory released at once would be removed before the log is written
        // into it, and left behind.
        let template = TempDirectory()
        defer { withExtendedLifetime(template) {} }
        let sizes = try threePieces(template.data)
        for cut in sizes.throughB..<sizes.full {
            let temp = TempDirectory()
            let (pack, throughB, _) = try threePieces(temp.data)
            truncateFile(pack, to: cut)
            if cut > throughB {
                #expect(try EventLog.verify(at: temp.data).problem?.kind == .tornTail)
            }
            let log = try openWriter(temp.data)
            #expect(fileSize(pack) == throughB, "cut at \(cut)")
            try everyReferencedPieceIsThere(log)
            #expect(try log.evidence(SHA256.hash(body(1))) == body(1))
            #expect(try log.evidence(SHA256.hash(body(2))) == body(2))
            #expect(try log.evidence(SHA256.hash(body(3))) == nil)
            let kept = (try? PosixFileSystem().readDirectory(temp.data + "/lost+found")) ?? []
            #expect(kept.count == (cut > throughB ? 1 : 0))
            #expect(try log.putEvidence(body(3)) == SHA256.hash(body(3)))
            #expect(try log.evidence(SHA256.hash(body(3))) == body(3))
            log.close()
            #expect(try EventLog.verify(at: temp.data).ok)
            let reopened = try openWriter(temp.data)
            #expect(try reopened.evidence(SHA256.hash(body(3))) == body(3))
            reopened.close()
        }
    }

    @Test func aBadBodyAtTheVeryEndIsATornTail() throws {
        let temp = TempDirectory()
        let (pack, throughB, full) = try threePieces(temp.data)
        var bytes = readBytes(pack)
        bytes[Int(full) - 3] ^= 0x20
        writeBytes(pack, bytes)
        #expect(try EventLog.verify(at: temp.data).problem?.kind == .tornTail)
        let log = try openWriter(temp.data)
        defer { log.close() }
        #expect(fileSize(pack) == throughB)
        try everyReferencedPieceIsThere(log)
        #expect(try log.evidence(SHA256.hash(body(3))) == nil)
    }

    /// A flipped byte in the last entry of the last pack, which record 3 refers to: its header (the length, the
    /// SHA-256, the header CRC) or its body. The entry was synced before the record was written, so this is damage,
    /// not a torn write: the writer's open (and `repair`) refuses to cut it, and `verify` reports it as damage.
    @Test(arguments: [9, 20, 50, EvidencePack.headerSize + 50])
    func aBadLastEntryThatARecordRefersToIsDamageNotATornTail(at position: Int) throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        for n in 1...3 { try webhook(log, n) }
        log.close()
        let pack = try #require(packPaths(temp.data).first)
        let entryC = 2 * Int64(EvidencePack.headerSize + 60)
        var bytes = readBytes(pack)
        bytes[Int(entryC) + position] ^= 0x20
        writeBytes(pack, bytes)

        let report = try EventLog.verify(at: temp.data, evidenceReferences: payloadIsDigest)
        #expect(report.problem?.kind == .damagedEvidence)
        #expect(report.problem?.segment == "evidence/pack-00000001")
        #expect(report.problem?.offset == entryC)
        #expect(report.problem?.seq == 3)
        #expect(report.problem?.message.contains("record 3 refers to") == true, "\(report.problem?.message ?? "")")

        for open in [
            { () throws in try openWriter(temp.data).close() },
            { () throws in _ = try EventLog.repair(at: temp.data, evidenceReferences: payloadIsDigest) },
        ] {
            do {
                try open()
                Issue.record("a damaged entry a record refers to must not be cut")
            } catch let error as LogError {
                #expect(error.code == .damaged)
                #expect(error.message.contains("pack-00000001 is damaged at byte \(entryC)"), "\(error.message)")
                #expect(error.message.contains("record 3 refers to"), "\(error.message)")
            }
            #expect(readBytes(pack) == bytes, "nothing was cut")
            #expect(((try? PosixFileSystem().readDirectory(temp.data + "/lost+found")) ?? []).isEmpty)
        }
    }

    /// The same bytes at the end of the pack, referred to by no record, are a torn tail: cut, and reported.
    @Test func aBadLastEntryNoRecordRefersToIsCutAndReported() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        for n in 1...2 { try webhook(log, n) }
        _ = try log.putEvidence(body(3))
        log.close()
        let pack = try #require(packPaths(temp.data).first)
        let entryC = 2 * Int64(EvidencePack.headerSize + 60)
        var bytes = readBytes(pack)
        bytes[Int(entryC) + 20] ^= 0x20
        writeBytes(pack, bytes)
        let report = try EventLog.verify(at: temp.data, evidenceReferences: payloadIsDigest)
        #expect(report.problem?.kind == .tornTail)
        #expect(report.problem?.message.contains("no record refers to it") == true)
        let reopened = try openWriter(temp.data)
        defer { reopened.close() }
        let cut = try #require(reopened.evidenceRecovery)
        #expect(cut.pack == "pack-00000001")
        #expect(cut.offset == entryC)
        #expect(cut.bytesCut == Int64(EvidencePack.headerSize + 60))
        #expect(readBytes(cut.savedAs) == Array(bytes[Int(entryC)...]))
        #expect(fileSize(pack) == entryC)
        #expect(
            "\(cut)".hasPrefix(
                "cut \(cut.bytesCut) bytes of torn tail from evidence pack pack-00000001 at byte \(entryC)"))
    }

    /// Evidence records refer to, gone: the pack deleted, or cut short at an entry boundary (nothing torn to see).
    /// `verify` checks every record's reference against the packs and names the first record and the count.
    @Test func verifyFindsEvidenceThatRecordsReferToMissing() throws {
        for damage in ["deleted", "shortened"] {
            let temp = TempDirectory()
            let log = try openWriter(temp.data)
            for n in 1...3 { try webhook(log, n) }
            try appendEach(log, 4...5)  // records without evidence
            log.close()
            #expect(try EventLog.verify(at: temp.data, evidenceReferences: payloadIsDigest).ok)
            let pack = try #require(packPaths(temp.data).first)
            if damage == "deleted" {
                #expect(unlink(pack) == 0)
            } else {
                truncateFile(pack, to: 2 * Int64(EvidencePack.headerSize + 60))
            }
            let report = try EventLog.verify(at: temp.data, evidenceReferences: payloadIsDigest)
            let (first, count) = damage == "deleted" ? (1, 3) : (3, 1)
            #expect(report.problem?.kind == .missingEvidence, "\(damage)")
            #expect(report.problem?.seq == UInt64(first), "\(damage)")
            #expect(report.missingEvidence == UInt64(count), "\(damage)")
            let message = report.problem?.message ?? ""
            #expect(message.hasPrefix("record \(first) refers to evidence \(Hex.encode(SHA256.hash(body(first))))"))
            #expect(message.contains("\(count) record(s) refer to evidence missing"), "\(message)")
            #expect(report.records == 5, "the log itself is whole")
        }
    }

    /// Evidence a live writer adds while `verify` walks the log is found: a miss looks at the packs again.
    @Test func verifyFindsEvidenceStoredAfterItsFirstLook() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        defer { log.close() }
        try webhook(log, 1)
        let store = EvidenceStore(
            DataDirectory(root: temp.data), fileSystem: PosixFileSystem(), writable: false,
            limit: EvidencePack.defaultLimit)
        defer { store.close() }
        #expect(try store.holds(EvidenceDigest(SHA256.hash(body(1)))!))
        try webhook(log, 2)
        #expect(try store.holds(EvidenceDigest(SHA256.hash(body(2)))!))
        #expect(try !store.holds(EvidenceDigest(SHA256.hash(body(3)))!))
    }

    @Test(arguments: [10, EvidencePack.headerSize + 20])
    func aFlippedByteInAnEarlierEntryIsReportedNotCut(at position: Int) throws {
        let temp = TempDirectory()
        let (pack, _, full) = try threePieces(temp.data)
        let digestB = SHA256.hash(body(2))
        let entryB = Int(EvidencePack.headerSize + 60)
        var bytes = readBytes(pack)
        bytes[entryB + position] ^= 0x01
        writeBytes(pack, bytes)

        let report = try EventLog.verify(at: temp.data)
        #expect(report.problem?.kind == .damagedEvidence)
        #expect(report.problem?.segment == "evidence/pack-00000001")
        #expect(report.problem?.offset == Int64(entryB))

        let log = try openWriter(temp.data)
        #expect(fileSize(pack) == full, "damage before the tail is never cut")
        #expect(try log.evidence(SHA256.hash(body(1))) == body(1))
        #expect(try log.evidence(SHA256.hash(body(3))) == body(3))
        if position < EvidencePack.headerSize {
            #expect(try log.evidence(digestB) == nil)  // the header is unreadable: the entry cannot be found
        } else {
            #expect(throws: LogError(.evidenceDamaged, "")) { try log.evidence(digestB) }
        }
        // Storing the same bytes again (Apple's retry, or a restore) writes a fresh copy.
        #expect(try log.putEvidence(body(2)) == digestB)
        #expect(try log.evidence(digestB) == body(2))
        log.close()
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        if position >= EvidencePack.headerSize {
            #expect(try reader.evidence(digestB) == body(2))
        }
        // (A reader stops at an unreadable entry of the newest pack: a live writer may be writing it.)
        if position < EvidencePack.headerSize {
            // An unreadable entry is damage whatever follows: nothing says whose copy it was.
            #expect(try EventLog.verify(at: temp.data).problem?.kind == .damagedEvidence)
        } else {
            // A bad body whose evidence was written again is no longer missing anything.
            #expect(try EventLog.verify(at: temp.data).ok)
        }
    }

    @Test func evidenceDamagedInAnEarlierPackIsWrittenAgainWhenDeliveredAgain() throws {
        let temp = TempDirectory()
        let options = LogOptions(evidencePackSize: 200)
        do {
            let log = try openWriter(temp.data, options: options)
            for n in 1...6 { try webhook(log, n) }
            log.close()
        }
        #expect(packPaths(temp.data).count > 2)
        let digest = SHA256.hash(body(2))
        let location: (path: String, offset: Int64, length: Int)
        do {
            let log = try openWriter(temp.data, options: options)
            defer { log.close() }
            location = try #require(log.evidenceLocation(digest))
            #expect(location.path != packPaths(temp.data).last, "in a sealed pack")
        }
        var bytes = readBytes(location.path)
        bytes[Int(location.offset) + EvidencePack.headerSize + 10] ^= 0x01
        writeBytes(location.path, bytes)
        let damaged = try EventLog.verify(at: temp.data)
        #expect(damaged.problem?.kind == .damagedEvidence)
        #expect(damaged.problem?.offset == location.offset)

        let writer = try openWriter(temp.data, options: options)
        #expect(throws: LogError(.evidenceDamaged, "")) { try writer.evidence(digest) }
        #expect(try writer.restoreEvidence(HashedBytes(body(3))) == false, "intact evidence is left alone")
        #expect(try writer.restoreEvidence(HashedBytes(body(2))))
        #expect(try writer.evidence(digest) == body(2))
        #expect(try writer.restoreEvidence(HashedBytes(body(2))) == false)
        #expect(try writer.restoreEvidence(HashedBytes(body(9))), "missing evidence is stored")
        writer.close()
        #expect(try EventLog.verify(at: temp.data).ok)
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        #expect(try reader.evidence(digest) == body(2))
        try everyReferencedPieceIsThere(reader)
        // The copy written again survives the writer's next open too.
        let again = try openWriter(temp.data, options: options)
        defer { again.close() }
        #expect(try again.evidence(digest) == body(2))
    }

    /// Stores a body as the webhook does and appends the record referencing it.
    func webhook(_ log: EventLog, _ n: Int) throws(LogError) {
        _ = try log.putEvidence(batch: [body(n)], durable: false)
        var record = entry(n)
        record.payload = SHA256.hash(body(n))
        _ = try log.append([record], syncingEvidenceFirst: true)
    }

    @Test(arguments: FaultTests.cases)
    func aFailingPackWriteOrSyncFailsTheAppendAndLosesNothing(_ fault: FaultTests.Case) throws {
        let temp = TempDirectory()
        let fs = FaultInjectingFileSystem()
        let log = try openWriter(temp.data, fileSystem: fs)
        for n in 1...3 { try webhook(log, n) }
        let before = fileSize(packPaths(temp.data)[0])
        fs.inject(Fault(.write, .shortWrite(maxBytes: 30), pathContains: "/evidence/pack-", times: 1))
        fs.inject(Fault(fault.operation, .error(fault.errno), pathContains: "/evidence/pack-"))
        for n in 4...5 {
            do {
                try webhook(log, n)
                Issue.record("the webhook must fail")
            } catch {
                #expect(error.code == fault.code)
            }
        }
        #expect(throws: LogError.self) { _ = try log.putEvidence(batch: [body(6)]) }
        #expect(log.head.seq == 3)
        if fault.operation == .write { #expect(fileSize(packPaths(temp.data)[0]) == before) }
        fs.clearFaults()
        for n in 4...6 { try webhook(log, n) }
        #expect(log.head.seq == 6)
        log.close()

        let reopened = try openWriter(temp.data)
        defer { reopened.close() }
        #expect(reopened.recovery == nil)
        try everyReferencedPieceIsThere(reopened)
        for n in 1...6 { #expect(try reopened.evidence(SHA256.hash(body(n))) == body(n)) }
        #expect(try EventLog.verify(at: temp.data).ok)
    }

    @Test func afterAFailedSyncTheUnsyncedEntriesAreWrittenAgainBeforeTheNextSync() throws {
        let temp = TempDirectory()
        let fs = FaultInjectingFileSystem()
        let log = try openWriter(temp.data, fileSystem: fs)
        defer { log.close() }
        let entrySize = Int64(EvidencePack.headerSize + 60)
        try webhook(log, 1)
        fs.inject(Fault(.fsync, .error(EIO), pathContains: "/evidence/pack-", times: 1))
        #expect(throws: LogError(.io, "")) { try webhook(log, 2) }
        let size = fileSize(packPaths(temp.data)[0])
        // Body 3 is stored, then the sync writes body 2 again (the kernel may have dropped the pages the failed
        // sync was writing) before it syncs both.
        try webhook(log, 3)
        #expect(fileSize(packPaths(temp.data)[0]) == size + 2 * entrySize)
        let second = try #require(log.evidenceLocation(SHA256.hash(body(2))))
        #expect(second.offset == size + entrySize)
        try webhook(log, 2)  // Apple's retry: already stored, nothing more is written
        #expect(fileSize(packPaths(temp.data)[0]) == size + 2 * entrySize)
        for n in 1...3 { #expect(try log.evidence(SHA256.hash(body(n))) == body(n)) }
    }

    /// A webhook's evidence stored before another caller's sync failed, and its record appended after: the
    /// record's batch writes that evidence again before its own sync, so the record never outlives it.
    @Test func evidenceStoredBeforeAFailedSyncIsRewrittenForALaterRecord() throws {
        let temp = TempDirectory()
        let fs = FaultInjectingFileSystem()
        let log = try openWriter(temp.data, fileSystem: fs)
        defer { log.close() }
        let entrySize = Int64(EvidencePack.headerSize + 60)
        _ = try log.putEvidence(batch: [body(1)], durable: false)
        fs.inject(Fault(.fsync, .error(EIO), pathContains: "/evidence/pack-", times: 1))
        #expect(throws: LogError(.io, "")) { _ = try log.putEvidence(batch: [body(2)]) }
        var record = entry(1)
        record.payload = SHA256.hash(body(1))
        _ = try log.append([record], syncingEvidenceFirst: true)
        #expect(fileSize(packPaths(temp.data)[0]) == 4 * entrySize)
        #expect(try #require(log.evidenceLocation(SHA256.hash(body(1)))).offset == 2 * entrySize)
        #expect(try log.evidence(SHA256.hash(body(1))) == body(1))
        #expect(try log.evidence(SHA256.hash(body(2))) == body(2))
    }
}
