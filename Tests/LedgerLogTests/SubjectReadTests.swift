import LedgerLog
import LedgerStore
import LedgerSystem
import Testing

/// The in-place subject read (`forEachRecord(forSubjectKey:)`, `forEachRecord(seqs:)`) gives exactly what the
/// copying reads give: same records, same order, every checksum checked.
@Suite struct SubjectReadTests {
    /// Records of mixed sizes (some far apart, some neighbours) over several small segments.
    func mixedLog(_ dir: String, count: Int = 400) throws -> EventLog {
        let log = try openWriter(dir, options: LogOptions(segmentSize: 16 << 10))
        var random: UInt64 = 0x5EED
        for n in 1...count {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let size = [8, 40, 300, 2_500, 9_000][Int(random >> 60) % 5]
            _ = try log.append(entry(n, payloadSize: size))
        }
        return log
    }

    /// What the in-place read gives, copied out: seq, recorded time, payload, chain hash.
    struct Seen: Equatable {
        let seq: UInt64
        let recordedAt: Int64
        let payload: [UInt8]
        let hash: [UInt8]

        init(_ view: LogRecordView) {
            seq = view.seq
            recordedAt = view.recordedAt
            payload = Array(view.payload)
            hash = Array(view.hash)
        }

        init(_ record: LogRecord) {
            seq = record.seq
            recordedAt = record.recordedAt
            payload = record.payload
            hash = record.hash
        }
    }

    @Test func readsEverySubjectAsTheCopyingReadDoes() throws {
        let temp = TempDirectory()
        let log = try mixedLog(temp.data)
        defer { log.close() }
        let keys = (0..<7).map { "user:\($0)" } + (0..<13).map { "otid:\(2_000_000 + $0)" } + ["user:none"]
        for key in keys {
            var seen: [Seen] = []
            try log.forEachRecord(forSubjectKey: key) { seen.append(Seen($0)) }
            #expect(seen == (try log.records(forSubjectKey: key)).map(Seen.init), "\(key)")
            let skipping = Set(seen.map(\.seq).filter { $0 % 3 == 0 })
            var rest: [Seen] = []
            try log.forEachRecord(forSubjectKey: key, skipping: skipping) { rest.append(Seen($0)) }
            #expect(rest == (try log.records(forSubjectKey: key, skipping: skipping)).map(Seen.init), "\(key)")
            var payloads: [UInt64] = []
            try log.forEachPayload(forSubjectKey: key, skipping: skipping) { seq, _, _ in payloads.append(seq) }
            #expect(payloads == rest.map(\.seq))
            var sorted: [Seen] = []
            try log.forEachRecord(forSubjectKey: key, skippingSorted: skipping.sorted()) { sorted.append(Seen($0)) }
            #expect(sorted == rest, "\(key)")
        }
    }

    @Test func aReaderReadsTheSameAsTheWriter() throws {
        let temp = TempDirectory()
        try mixedLog(temp.data).close()
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        var seen: [UInt64] = []
        try reader.forEachRecord(forSubjectKey: "user:3") { seen.append($0.seq) }
        let expected: [UInt64] = (1...400).filter { $0 % 7 == 3 }.map { UInt64($0) }
        #expect(seen == expected)
    }

    @Test func theGroupedIndexItsTailAndTheFileWrittenFromBothReadAlike() throws {
        // The index file of the first writer lists postings in record order; the second writer loads it grouped
        // (each subject's postings side by side, placed in the sealed segments), adds a tail, and writes groups
        // then tail back; a reader loads that file grouped again. Every subject reads the same all along.
        let temp = TempDirectory()
        try mixedLog(temp.data).close()
        let keys = (0..<7).map { "user:\($0)" } + (0..<13).map { "otid:\(2_000_000 + $0)" } + ["user:none"]
        func expected(_ key: String, through last: Int) -> [UInt64] {
            (1...last).filter { entry($0).subjectKeys.contains(key) }.map { UInt64($0) }
        }
        func check(_ log: EventLog, through last: Int, _ label: String) throws {
            #expect(log.subjectCount == 20, "\(label)")
            for key in keys {
                var seen: [Seen] = []
                try log.forEachRecord(forSubjectKey: key) { seen.append(Seen($0)) }
                #expect(seen.map(\.seq) == expected(key, through: last), "\(label) \(key)")
                #expect(seen == (try log.records(forSubjectKey: key)).map(Seen.init), "\(label) \(key)")
                let skipping = seen.map(\.seq).filter { $0 % 2 == 0 }
                var rest: [UInt64] = []
                try log.forEachRecord(forSubjectKey: key, skippingSorted: skipping) { rest.append($0.seq) }
                #expect(rest == seen.map(\.seq).filter { $0 % 2 == 1 }, "\(label) \(key)")
            }
        }
        do {
            let writer = try openWriter(temp.data, options: LogOptions(segmentSize: 16 << 10))
            defer { writer.close() }
            try check(writer, through: 400, "loaded")
            for n in 401...520 { _ = try writer.append(entry(n, payloadSize: [40, 900, 3_000][n % 3])) }
            try check(writer, through: 520, "loaded and appended")
        }
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        try check(reader, through: 520, "reader of the rewritten file")
        let writer = try openWriter(temp.data, options: LogOptions(segmentSize: 16 << 10))
        defer { writer.close() }
        try check(writer, through: 520, "writer of the rewritten file")
    }

    @Test func readsGivenSeqsInPlaceAcrossSegments() throws {
        let temp = TempDirectory()
        let log = try mixedLog(temp.data)
        defer { log.close() }
        for seqs in [Array(1...400), [1, 2, 3, 200, 201, 399, 400], Array(stride(from: 5, through: 400, by: 37))] {
            var seen: [Seen] = []
            try log.forEachRecord(seqs: seqs.map(UInt64.init)) { seen.append(Seen($0)) }
            #expect(seen == (try seqs.map { try log.record(seq: UInt64($0)) }).map(Seen.init))
        }
        #expect(throws: LogError.self) { try log.forEachRecord(seqs: [401]) { _ in } }
    }

    @Test func aFlippedByteIsDamageNotData() throws {
        let temp = TempDirectory()
        try mixedLog(temp.data, count: 60).close()
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        let target = try reader.record(seq: 24)  // user:3
        #expect(reader.seqs(forSubjectKey: "user:3").contains(24))  // indexes loaded before the damage
        let path = temp.data + "/log/" + target.segment
        var bytes = try #require(try PosixFileSystem().readFile(path))
        bytes[Int(target.offset) + 40] ^= 0x5A
        writeBytes(path, bytes)
        #expect {
            try reader.forEachRecord(forSubjectKey: "user:3") { _ in }
        } throws: { error in
            (error as? LogError)?.code == .damaged
        }
        #expect(throws: LogError.self) { try reader.forEachRecord(seqs: [23, 24]) { _ in } }
        var others: [UInt64] = []
        try reader.forEachRecord(forSubjectKey: "user:4") { others.append($0.seq) }
        let expected: [UInt64] = (1...60).filter { $0 % 7 == 4 }.map { UInt64($0) }
        #expect(others == expected)
    }

    @Test func aByteFlippedUnderAMappedSegmentIsDamage() throws {
        // Sealed segments are read in place from a shared mapping: a byte changed in the file afterwards shows
        // through the mapping, and the CRC still catches it.
        let temp = TempDirectory()
        try mixedLog(temp.data).close()
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        let target = try reader.record(seq: 24)  // user:3, in an early (sealed) segment
        let lastSegment = segmentPaths(temp.data).last ?? ""
        #expect(!lastSegment.hasSuffix(target.segment))
        var before: [UInt64] = []
        try reader.forEachRecord(forSubjectKey: "user:3") { before.append($0.seq) }  // maps the segment
        #expect(before.contains(24))
        let fs = PosixFileSystem()
        let fd = try fs.open(temp.data + "/log/" + target.segment, OpenOptions(access: .readWrite))
        let at = target.offset + 40
        var byte: [UInt8] = try fs.read(fd, count: 1, at: at)
        byte[0] ^= 0x5A
        try fs.writeAll(fd, byte, at: at)
        #expect {
            try reader.forEachRecord(forSubjectKey: "user:3") { _ in }
        } throws: { error in
            (error as? LogError)?.code == .damaged
        }
        byte[0] ^= 0x5A
        try fs.writeAll(fd, byte, at: at)
        try fs.close(fd)
        var after: [UInt64] = []
        try reader.forEachRecord(forSubjectKey: "user:3") { after.append($0.seq) }
        #expect(after == before)
    }

    @Test func readsStayExactWhileTheWriterRollsSegments() throws {
        // The tail segment is read with pread while it grows; once the writer rolls past it, it is mapped.
        let temp = TempDirectory()
        let log = try mixedLog(temp.data, count: 50)
        defer { log.close() }
        for round in 0..<6 {
            for key in ["user:2", "otid:2000005"] {
                var seen: [Seen] = []
                try log.forEachRecord(forSubjectKey: key) { seen.append(Seen($0)) }
                #expect(seen == (try log.records(forSubjectKey: key)).map(Seen.init), "round \(round) \(key)")
            }
            for n in (50 + round * 40 + 1)...(50 + round * 40 + 40) {
                _ = try log.append(entry(n, payloadSize: [40, 900, 3_000][n % 3]))
            }
        }
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        var seen: [UInt64] = []
        try reader.forEachRecord(forSubjectKey: "user:2") { seen.append($0.seq) }
        let expected: [UInt64] = (1...290).filter { $0 % 7 == 2 }.map { UInt64($0) }
        #expect(seen == expected)
    }

    @Test func subjectKeyHashesAreTheIndexHashes() throws {
        let temp = TempDirectory()
        let log = try mixedLog(temp.data, count: 30)
        defer { log.close() }
        var hashes: [UInt64: String] = [:]
        try log.forEachView { view, _, _ in
            var index = 0
            let keys = view.subjectKeys
            view.forEachSubjectKeyHash { hash in
                if let known = hashes[hash] { #expect(known == keys[index]) }
                hashes[hash] = keys[index]
                index += 1
            }
            #expect(index == keys.count)
        }
        #expect(Set(hashes.values).count == 7 + 13)
    }
}
