import LedgerStore
import LedgerSystem
import Testing

@testable import LedgerLog

#if canImport(Glibc)
    import Glibc
#endif

/// The cluster files (each subject's records copied side by side): written by the writer, read by every reader,
/// never the truth — a damaged, stale or missing file changes no answer.
@Suite struct ClusterTests {
    static let keys = (0..<7).map { "user:\($0)" } + (0..<13).map { "otid:\(2_000_000 + $0)" } + ["user:none"]

    /// Small segments, a cluster file from 50 records on, index files every 100 records (each a checkpoint that
    /// may start a cluster file in the background).
    static let options = LogOptions(segmentSize: 16 << 10, checkpointInterval: 100, clusterMinimum: 50)
    /// The same without checkpoints: the cluster files are written at close, all at once.
    static let atClose = LogOptions(segmentSize: 16 << 10, checkpointInterval: 0, clusterMinimum: 50)

    /// A writer's log of `count` records of mixed sizes, closed (which clusters what is left: with ``atClose``,
    /// the whole log in one file).
    func mixedLog(
        _ dir: String, count: Int = 400, options: LogOptions = ClusterTests.atClose, seed: UInt64 = 0xC1
    ) throws {
        let log = try openWriter(dir, options: options)
        defer { log.close() }
        var random = seed
        for n in 1...count {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            _ = try log.append(entry(n, payloadSize: [8, 40, 300, 2_500, 9_000][Int(random >> 60) % 5]))
        }
    }

    /// Every key's records read by subject (through the clusters where they hold them) and one by one (never
    /// through them), with and without skipping some: they must agree.
    func expectSameAnswers(_ log: EventLog, _ label: String) throws {
        for key in Self.keys {
            var seen: [SubjectReadTests.Seen] = []
            try log.forEachRecord(forSubjectKey: key) { seen.append(SubjectReadTests.Seen($0)) }
            let expected = try log.records(forSubjectKey: key).map(SubjectReadTests.Seen.init)
            #expect(seen == expected, "\(label) \(key)")
            let skipping = seen.map(\.seq).filter { $0 % 3 == 0 }
            var rest: [UInt64] = []
            try log.forEachRecord(forSubjectKey: key, skippingSorted: skipping) { rest.append($0.seq) }
            #expect(rest == expected.map(\.seq).filter { $0 % 3 != 0 }, "\(label) \(key)")
        }
    }

    func clusterFiles(_ dir: String) throws -> [String] {
        try PosixFileSystem().readDirectory(dir + "/index").filter { $0.hasPrefix("cluster-") }.sorted()
    }

    func clusters(_ log: EventLog) -> [(UInt64, UInt64)] {
        log.lock.withLock { log.state.clusters.files.map { ($0.from, $0.through) } }
    }

    @Test func theWriterClustersTheWholeLogAndReadersAnswerFromIt() throws {
        let temp = TempDirectory()
        try mixedLog(temp.data)
        let files = try clusterFiles(temp.data)
        #expect(!files.isEmpty)
        // A chain from the first record to the last.
        let ranges = files.compactMap(SubjectCluster.range(ofFileName:))
        #expect(ranges.first?.from == 0 && ranges.last?.through == 400)
        for (earlier, later) in zip(ranges, ranges.dropFirst()) { #expect(earlier.through == later.from) }
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        try expectSameAnswers(reader, "reader")
        #expect(clusters(reader).last?.1 == 400)
        // Every record a user's run holds is read there (the log is not needed for them).
        let hash = StableHash.hash("user:3")
        let seqs = reader.seqs(forSubjectKey: "user:3")
        let found = try #require(
            SubjectCluster.records(seqs, hash: hash, in: reader.lock.withLock { reader.state.clusters.files }))
        #expect(found.allSatisfy { $0 != nil })
        #expect(found.map { $0?.seq } == seqs)
    }

    @Test func recordsAfterTheClustersAreReadFromTheLog() throws {
        let temp = TempDirectory()
        try mixedLog(temp.data)
        // Fewer than the minimum: no new cluster file; the new records come from the log.
        let writer = try openWriter(temp.data, options: Self.options)
        for n in 401...430 { _ = try writer.append(entry(n, payloadSize: 100)) }
        try expectSameAnswers(writer, "writer with a tail")
        #expect(clusters(writer).last?.1 == 400)
        writer.close()
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        try expectSameAnswers(reader, "reader")
        #expect(clusters(reader).last?.1 == 400)
    }

    @Test func aCheckpointClustersInTheBackground() throws {
        let temp = TempDirectory()
        let writer = try openWriter(temp.data, options: Self.options)
        defer { writer.close() }
        for n in 1...250 { _ = try writer.append(entry(n, payloadSize: 200)) }
        // Index files at 100 and 200 started builds; wait for them.
        writer.lock.withLock { writer.stopMaintenanceLocked() }
        let covered = clusters(writer).last?.1 ?? 0
        #expect(covered >= 100)
        // Enough new records for the next file (at least the minimum, and half what the files hold); a checkpoint
        // then clusters until fewer than that are left out.
        func threshold(_ clustered: UInt64) -> UInt64 { max(50, clustered / 2) }
        let head = 250 + Int(threshold(covered)) + 10
        for n in 251...head { _ = try writer.append(entry(n, payloadSize: 200)) }
        try writer.checkpoint()
        writer.lock.withLock { writer.stopMaintenanceLocked() }
        let now = clusters(writer).last?.1 ?? 0
        #expect(now > covered)
        #expect(UInt64(head) - now < threshold(now), "head \(head), clustered through \(now)")
        try expectSameAnswers(writer, "writer")
    }

    @Test func neighbouringFilesOfCloseSizesAreMerged() throws {
        let temp = TempDirectory()
        let writer = try openWriter(temp.data, options: Self.options)
        defer { writer.close() }
        for n in 1...1_500 { _ = try writer.append(entry(n, payloadSize: [40, 300, 900][n % 3])) }
        try writer.checkpoint()
        writer.lock.withLock { writer.stopMaintenanceLocked() }
        let spans = clusters(writer).map { $0.1 - $0.0 }
        // Each file more than twice the next: a few files however many checkpoints added one.
        #expect(spans.count >= 1 && spans.count <= 5, "\(spans)")
        for (older, newer) in zip(spans, spans.dropFirst()) { #expect(older > 2 * newer, "\(spans)") }
        #expect(try clusterFiles(temp.data).count == spans.count)  // the merged ones were deleted
        // … and unmapped, so their disk space is free: no mapping of this process names a deleted cluster file.
        let maps = String(decoding: try #require(try PosixFileSystem().readStream("/proc/self/maps")), as: UTF8.self)
        let stale = maps.split(separator: "\n").filter { $0.contains(temp.data) && $0.contains("(deleted)") }
        #expect(stale.isEmpty, "\(stale)")
        #expect(maps.contains(temp.data + "/index/cluster-"))
        try expectSameAnswers(writer, "merged")
    }

    @Test func aMergeThatFindsADamagedFrameDropsTheFilesAndCopiesFromTheLog() throws {
        let temp = TempDirectory()
        let options = LogOptions(segmentSize: 16 << 10, checkpointInterval: 0, clusterMinimum: 50)
        let writer = try openWriter(temp.data, options: options)
        defer { writer.close() }
        for n in 1...100 { _ = try writer.append(entry(n, payloadSize: 300)) }
        try writer.checkpoint()
        writer.lock.withLock { writer.stopMaintenanceLocked() }
        for n in 101...200 { _ = try writer.append(entry(n, payloadSize: 300)) }
        // Damage a frame of the first file before the second is written and merged with it.
        let first = try #require(try clusterFiles(temp.data).first)
        #expect(first == SubjectCluster.fileName(from: 0, through: 100))
        var bytes = readBytes(temp.data + "/index/" + first)
        bytes[bytes.count - 100] ^= 0x10
        writeBytes(temp.data + "/index/" + first, bytes)
        // The merge refuses it, both files are dropped, and the same build copies the records from the log.
        try writer.checkpoint()
        writer.lock.withLock { writer.stopMaintenanceLocked() }
        #expect(clusters(writer).map(\.0) == [0] && clusters(writer).last?.1 == 200)
        #expect(try clusterFiles(temp.data) == [SubjectCluster.fileName(from: 0, through: 200)])
        let file = try #require(writer.lock.withLock { writer.state.clusters.files.first })
        #expect(file.runs()?.count == 7)  // one run per user: a record lives with its first subject key
        for key in Self.keys.prefix(7) {
            let seqs = writer.seqs(forSubjectKey: key)
            let found = SubjectCluster.records(seqs, hash: StableHash.hash(key), in: [file])
            #expect(found?.allSatisfy { $0 != nil } == true, "\(key)")
        }
        try expectSameAnswers(writer, "copied again")
    }

    @Test(arguments: [
        Fault(.write, .error(ENOSPC), pathContains: "cluster-"),
        Fault(.write, .shortWrite(maxBytes: 0), pathContains: "cluster-", after: 1),
        Fault(.fsync, .error(EIO), pathContains: "cluster-"),
        Fault(.rename, .error(EIO), pathContains: "cluster-"),
    ])
    func aClusterFileThatCannotBeWrittenLeavesNothingAndIsWrittenOnceItCan(_ fault: Fault) throws {
        let temp = TempDirectory()
        let fileSystem = FaultInjectingFileSystem(mappingPathsContaining: "/index/cluster-")
        let options = LogOptions(segmentSize: 16 << 10, checkpointInterval: 0, clusterMinimum: 50)
        let writer = try openWriter(temp.data, options: options, fileSystem: fileSystem)
        defer { writer.close() }
        for n in 1...120 { _ = try writer.append(entry(n, payloadSize: 300)) }
        fileSystem.inject(fault)
        try writer.checkpoint()  // the index files are written; the cluster file fails in the background
        writer.lock.withLock { writer.stopMaintenanceLocked() }
        #expect(fileSystem.firedCount > 0)
        #expect(clusters(writer).isEmpty)
        #expect(try clusterFiles(temp.data).isEmpty)  // no temporary file left behind
        try expectSameAnswers(writer, "failed")
        _ = try writer.append(entry(121, payloadSize: 300))  // appends go on
        fileSystem.clearFaults()
        try writer.checkpoint()
        writer.lock.withLock { writer.stopMaintenanceLocked() }
        #expect(clusters(writer).map(\.1) == [121])
        try expectSameAnswers(writer, "written")
    }

    @Test func damagedClusterFilesChangeNoAnswer() throws {
        let temp = TempDirectory()
        try mixedLog(temp.data)
        let files = try clusterFiles(temp.data)
        let index = temp.data + "/index/"
        let originals = files.map { readBytes(index + $0) }
        func reopened(_ label: String) throws -> [(UInt64, UInt64)] {
            let reader = try EventLog.openReader(at: temp.data)
            defer { reader.close() }
            try expectSameAnswers(reader, label)
            return clusters(reader)
        }
        // A flipped byte in every frame's region of the data: the frame fails its checksum, the log answers.
        for (name, bytes) in zip(files, originals) {
            var damaged = bytes
            for at in stride(from: bytes.count - 1, to: bytes.count / 2, by: -97) { damaged[at] ^= 0x40 }
            writeBytes(index + name, damaged)
        }
        #expect(try reopened("flipped frames").last?.1 == 400)  // the headers hold: the files are used
        // A flipped byte in the header or table: the file is refused (and the chain stops there).
        for (name, bytes) in zip(files, originals) {
            var damaged = bytes
            damaged[SubjectCluster.headerSize + 3] ^= 0x01
            writeBytes(index + name, damaged)
        }
        #expect(try reopened("flipped tables").isEmpty)
        // Cut short, or gone.
        for (name, bytes) in zip(files, originals) { writeBytes(index + name, Array(bytes.prefix(bytes.count - 10))) }
        #expect(try reopened("truncated").isEmpty)
        for name in files { try PosixFileSystem().unlink(index + name) }
        #expect(try reopened("deleted").isEmpty)
        // The writer writes them again.
        let writer = try openWriter(temp.data, options: Self.options)
        writer.close()
        #expect(try reopened("rewritten").last?.1 == 400)
    }

    @Test func aWellSealedFileWhoseRunsPointNowhereChangesNoAnswer() throws {
        // Header and table intact (their checksum holds) but runs out of the data, runs cut short, and frames
        // that are not the records the index lists: every answer still comes whole, from the log where needed.
        let temp = TempDirectory()
        try mixedLog(temp.data, options: LogOptions(segmentSize: 16 << 10, clusterMinimum: 0))
        let reader = try EventLog.openReader(at: temp.data)
        let hash = Array(try reader.record(seq: 400).hash)
        reader.close()
        let name = SubjectCluster.fileName(from: 0, through: 400)
        let users = (0..<7).map { StableHash.hash("user:\($0)") }
        let segment = try #require(segmentPaths(temp.data).first)
        let frame = Array(readBytes(segment).dropFirst(128).prefix(200))
        var data: [UInt8] = []
        var runs: [(hash: UInt64, offset: UInt64)] = []
        for (index, user) in users.sorted().enumerated() {
            let offset = UInt64(data.count)
            runs.append((user, index < 3 ? offset : offset + (1 << 40)))  // the others point past the data
            data.appendLE(user)
            data.appendLE(UInt64(index == 0 ? 1 << 20 : frame.count))  // the first claims more than there is
            data += frame  // the log's first frame (part of it), whoever the run is for
        }
        for dataLength in [UInt64(data.count), 0] {
            let header = SubjectCluster.headerAndTable(
                from: 0, through: 400, hash: hash, runs: runs, dataLength: dataLength)
            writeBytes(temp.data + "/index/" + name, header + (dataLength == 0 ? [] : data))
            let reader = try EventLog.openReader(at: temp.data)
            defer { reader.close() }
            try expectSameAnswers(reader, "runs pointing nowhere, data \(dataLength)")
            #expect(clusters(reader).count == 1)  // the file was taken: its header and table hold
        }
    }

    @Test func clusterFilesOfAnotherHistoryAreIgnoredAndDeleted() throws {
        let temp = TempDirectory()
        let other = TempDirectory()
        try mixedLog(temp.data)
        try mixedLog(
            other.data, count: 400, options: LogOptions(segmentSize: 16 << 10, clusterMinimum: 0), seed: 0xD2)
        // Same ranges, another history (the records' sizes differ): its chain hashes do not match.
        let theirs = try clusterFiles(temp.data)
        for name in theirs {
            writeBytes(other.data + "/index/" + name, readBytes(temp.data + "/index/" + name))
        }
        let otherWriter = try openWriter(other.data, options: LogOptions(segmentSize: 16 << 10, clusterMinimum: 0))
        #expect(clusters(otherWriter).isEmpty)
        try expectSameAnswers(otherWriter, "other history")
        otherWriter.close()
        #expect(try clusterFiles(other.data).isEmpty)
    }

    @Test func aTornTailCutUnderAClusterFileRetiresIt() throws {
        let temp = TempDirectory()
        try mixedLog(temp.data)
        #expect(try clusterFiles(temp.data).last?.hasSuffix("-00000000000000000400") == true)
        // Tear the last record: the writer's open cuts it, so the file that ends at 400 no longer matches the log.
        let last = try #require(segmentPaths(temp.data).last)
        let bytes = readBytes(last)
        writeBytes(last, Array(bytes.prefix(bytes.count - 7)))
        let writer = try openWriter(temp.data, options: Self.options)
        #expect(writer.head.seq == 399)
        try expectSameAnswers(writer, "after the cut")
        // The open deleted the retired file and copies its records again in the background.
        writer.lock.withLock { writer.stopMaintenanceLocked() }
        #expect(try clusterFiles(temp.data) == [SubjectCluster.fileName(from: 0, through: 399)])
        writer.close()
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        try expectSameAnswers(reader, "reader after the cut")
        #expect(clusters(reader).last?.1 == 399)
    }

    @Test func rebuildWritesTheClusterFilesAgain() throws {
        let temp = TempDirectory()
        try mixedLog(temp.data, options: LogOptions(segmentSize: 16 << 10, clusterMinimum: 0))
        #expect(try clusterFiles(temp.data).isEmpty)
        let writer = try openWriter(temp.data, options: Self.options)
        defer { writer.close() }
        writer.lock.withLock { writer.stopMaintenanceLocked() }
        try writer.rebuildIndexes()
        #expect(clusters(writer).map(\.0) == [0])
        #expect(clusters(writer).last?.1 == 400)
        try expectSameAnswers(writer, "rebuilt")
    }

    @Test func aRecordWithoutSubjectsIsNotCopied() throws {
        let temp = TempDirectory()
        do {
            let log = try openWriter(temp.data, options: LogOptions(clusterMinimum: 1))
            _ = try log.append([
                LogEntry(idempotencyKey: "no-subject", subjectKeys: [], payload: [1, 2, 3]),
                entry(2), entry(3),
            ])
            log.close()
        }
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        try expectSameAnswers(reader, "reader")  // (a reader loads the clusters with its indexes)
        #expect(clusters(reader).map(\.1) == [3])
        #expect(reader.seq(forIdempotencyKey: "no-subject") == 1)
    }
}
