import LedgerStore
import LedgerSystem
import Testing

@testable import LedgerLog

#if canImport(Glibc)
    import Glibc
#endif

/// The data directory: one writer, readers alongside, evidence and derived files.
@Suite struct DirectoryTests {
    @Test func aSecondWriterIsRefusedEvenWhenLOCKWasDeletedUnderTheFirst() throws {
        let temp = TempDirectory()
        let writer = try openWriter(temp.data)
        defer { writer.close() }
        try appendEach(writer, 1...3)
        // An operator "cleans a stale lock file" while the writer runs: a second writer would create a new LOCK
        // and write over the first one's records.
        #expect(unlink(temp.data + "/LOCK") == 0)
        do {
            let second = try openWriter(temp.data)
            second.close()
            Issue.record("a second writer must be refused while the first runs, LOCK or not")
        } catch let error as LogError {
            #expect(error.code == .locked)
        }
        try appendEach(writer, 4...5)
        #expect(try EventLog.verify(at: temp.data).ok)
    }

    @Test func aSecondWriterIsRefusedNamingTheHolderWhileReadersWork() throws {
        let temp = TempDirectory()
        let writer = try openWriter(temp.data)
        defer { writer.close() }
        try appendEach(writer, 1...3)
        do {
            _ = try openWriter(temp.data)
            Issue.record("a second writer must be refused")
        } catch let error as LogError {
            #expect(error.code == .locked)
            #expect(error.message.contains("pid \(getpid())"))
            #expect(error.message.contains("Readers"))
        }
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        #expect(reader.head.seq == 3)
        #expect(try reader.record(seq: 2).idempotencyKey == "notification-2")
        #expect(throws: LogError(.notWritable, "")) { try reader.append(entry(4)) }
        #expect(try EventLog.verify(at: temp.data).ok)
    }

    /// A directory a writer opened but never wrote to is bound to no environment: a reader sees an empty log with no
    /// genesis hash (it cannot know the environment), the writer the genesis of the one it was told; the first
    /// record binds it, and both then agree.
    @Test func anUnboundDirectoryHasNoGenesisForAReader() throws {
        let temp = TempDirectory()
        let writer = try openWriter(temp.data)
        #expect(writer.head.seq == 0)
        #expect(writer.head.hash == LogFormat.genesis(environment: "sandbox"))
        let reader = try EventLog.openReader(at: temp.data)
        #expect(reader.head.seq == 0)
        #expect(reader.head.hash.isEmpty)
        reader.close()
        try appendEach(writer, 1...1)
        let bound = try EventLog.openReader(at: temp.data)
        #expect(bound.head.seq == 1 && bound.head.hash == writer.head.hash)
        bound.close()
        writer.close()
    }

    @Test func theLockIsFreeAgainAfterClose() throws {
        let temp = TempDirectory()
        try openWriter(temp.data).close()
        let again = try openWriter(temp.data)
        again.close()
    }

    @Test func exportThenImportGivesTheSameHeadAndReimportAppendsNothing() throws {
        let source = TempDirectory()
        let log = try openWriter(source.data)
        try appendEach(log, 1...40)
        let head = log.head
        var exported: [LogRecord] = []
        try log.forEach { exported.append($0) }
        log.close()

        let target = TempDirectory()
        let copy = try EventLog.openWriter(at: target.data, environment: "sandbox")
        defer { copy.close() }
        let first = try copy.append(exported.map(LogEntry.init))
        #expect(first.allSatisfy { if case .appended = $0 { true } else { false } })
        #expect(copy.head.seq == head.seq)
        #expect(copy.head.hash == head.hash)
        let second = try copy.append(exported.map(LogEntry.init))
        #expect(second == exported.map { .duplicate(seq: $0.seq) })
        #expect(copy.head.hash == head.hash)
    }

    @Test func deletingOrCorruptingIndexFilesChangesNoAnswer() throws {
        let temp = TempDirectory()
        do {
            let log = try openWriter(temp.data)
            try appendEach(log, 1...60)
            log.close()
        }
        func answers() throws -> [String] {
            let log = try openWriter(temp.data)
            defer { log.close() }
            var out = (0..<7).map { "user:\($0)=\(log.seqs(forSubjectKey: "user:\($0)"))" }
            out.append("key=\(log.seq(forIdempotencyKey: "notification-33") ?? 0)")
            out.append("dup=\(try log.append(entry(12)))")
            return out
        }
        let baseline = try answers()
        let index = temp.data + "/index/"
        let fs = PosixFileSystem()
        #expect(try fs.stat(index + "keys.idx") != nil)
        try fs.unlink(index + "keys.idx")
        #expect(try answers() == baseline)
        var bytes = readBytes(index + "subjects.idx")
        bytes[bytes.count / 2] ^= 0xFF
        writeBytes(index + "subjects.idx", bytes)
        #expect(try answers() == baseline)
        writeBytes(index + "keys.idx", Array("not an index".utf8))
        #expect(try answers() == baseline)
    }

    @Test func staleIndexFilesFromAnotherHistoryAreRebuilt() throws {
        let temp = TempDirectory()
        do {
            let log = try openWriter(temp.data)
            try appendEach(log, 1...10)
            log.close()
        }
        let saved = readBytes(temp.data + "/index/keys.idx")
        let savedSubjects = readBytes(temp.data + "/index/subjects.idx")
        // Another history of the same length: the index files claim seq 10 with a hash that is not this log's.
        let other = TempDirectory()
        do {
            let log = try openWriter(other.data)
            try appendEach(log, 101...110)
            log.close()
        }
        writeBytes(other.data + "/index/keys.idx", saved)
        writeBytes(other.data + "/index/subjects.idx", savedSubjects)
        let log = try openWriter(other.data)
        defer { log.close() }
        #expect(log.seq(forIdempotencyKey: "notification-3") == nil)
        #expect(log.seq(forIdempotencyKey: "notification-103") == 3)
    }

    @Test func evidenceIsContentAddressedDurableAndChecked() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        defer { log.close() }
        let payload = Array("eyJhbGciOiJFUzI1NiJ9.payload.signature".utf8)
        let digest = try log.putEvidence(payload)
        #expect(digest.count == 32)
        #expect(try log.putEvidence(payload) == digest)
        #expect(try log.evidence(digest) == payload)
        let location = try #require(log.evidenceLocation(digest))
        #expect(location.path.hasPrefix(temp.data + "/evidence/pack-"))
        #expect(try log.evidence([UInt8](repeating: 7, count: 32)) == nil)
        var bytes = readBytes(location.path)
        bytes[Int(location.offset) + 56] ^= 1
        writeBytes(location.path, bytes)
        #expect(throws: LogError(.evidenceDamaged, "")) { try log.evidence(digest) }
    }

    @Test func evidencePathsAreTheHexOfTheDigestSplitAfterTwoDigits() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        defer { log.close() }
        let digest = (0..<32).map { UInt8($0 * 37 % 256) }
        let hex = digest.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
            .joined()
        #expect(log.evidencePath(digest) == temp.data + "/evidence/" + hex.prefix(2) + "/" + hex.dropFirst(2))
    }

    @Test func derivedFilesAreTrustedOnlyWhileTheyMatchTheLog() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        try appendEach(log, 1...5)
        let head = log.head
        try log.writeDerived("projection.snap", [1, 2, 3], coveredSeq: head.seq, headHash: head.hash)
        #expect(head.seq == 5)
        try appendEach(log, 6...8)
        let snapshot = try #require(log.readDerived("projection.snap"))
        #expect(snapshot.coveredSeq == 5)
        #expect(snapshot.bytes == [1, 2, 3])
        log.close()
        var bytes = readBytes(temp.data + "/index/projection.snap")
        bytes[bytes.count - 1] ^= 1
        writeBytes(temp.data + "/index/projection.snap", bytes)
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        #expect(reader.readDerived("projection.snap") == nil)
        #expect(reader.readDerived("missing.snap") == nil)
    }
}

@Suite struct LiveReaderTests {
    @Test func verifyAndReadersSeeOnlyWholeRecordsWhileAWriterAppends() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data, options: LogOptions(segmentSize: 64 * 1024))
        _ = try log.append(entry(0))
        let problems = ResultBox()
        let data = temp.data
        runThreads(2) { thread in
            if thread == 0 {
                for n in 1...600 { _ = try? log.append([entry(n, payloadSize: 300)]) }
            } else {
                for _ in 0..<15 {
                    let report = try? EventLog.verify(at: data)
                    problems.add(report?.ok == true ? 0 : 1)
                    if let reader = try? EventLog.openReader(at: data) {
                        var count: UInt64 = 0
                        try? reader.forEach { _ in count += 1 }
                        problems.add(count == reader.head.seq ? 0 : 1)
                        reader.close()
                    }
                }
            }
        }
        log.close()
        #expect(problems.values.allSatisfy { $0 == 0 })
        #expect(try EventLog.verify(at: temp.data).headSeq == 601)
    }
}

@Suite struct ReaderIndexTests {
    @Test(arguments: ["intact", "missing", "stale"])
    func aReaderAnswersIndexQueriesWhateverTheIndexFiles(_ files: String) throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        try appendEach(log, 1...30)
        log.close()  // writes index files covering 30
        let reopened = try openWriter(temp.data)
        try appendEach(reopened, 31...45)
        let expected = reopened.seqs(forSubjectKey: "user:3")
        reopened.close()
        switch files {
        case "missing": TempDirectory.removeTree(temp.data + "/index")
        case "stale":
            // Index files from another history: they must be ignored.
            let other = TempDirectory()
            let log = try openWriter(other.data)
            try appendEach(log, 101...145)
            log.close()
            TempDirectory.removeTree(temp.data + "/index")
            try PosixFileSystem().rename(other.data + "/index", to: temp.data + "/index")
        default: break
        }
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        #expect(reader.seqs(forSubjectKey: "user:3") == expected)
        #expect(expected.last == 45)
        #expect(reader.seq(forIdempotencyKey: "notification-40") == 40)
        #expect(reader.seq(forIdempotencyKey: "notification-140") == nil)
    }
}

@Suite struct CloseTests {
    let directory = TempDirectory()

    @Test func closingTwiceLeavesTheDescriptorsOpenedSinceAlone() throws {
        let writer = try openWriter(directory.data)
        try appendEach(writer, 1...20)
        writer.close()
        // The descriptors the log released are the lowest free numbers: these take them.
        let others = (0..<8).map { _ in open(directory.data + "/meta", O_RDONLY) }
        defer { for fd in others { Glibc.close(fd) } }
        writer.close()
        for fd in others {
            #expect(fd >= 0)
            #expect(fcntl(fd, F_GETFD) != -1, "descriptor \(fd) was closed by the second close")
        }
    }
}
