import LedgerSystem
import Testing

@testable import LedgerLog

#if canImport(Glibc)
    import Glibc
#endif

/// The in-memory index structures: exact answers even when 64-bit hashes collide.
@Suite struct IndexStructureTests {
    @Test func hashTableKeepsEveryEntryThroughGrowthAndCopies() {
        var table = HashTable64()
        for key in 0..<UInt64(10_000) { table.set(key &* 0x9E37_79B9_7F4A_7C15, key + 1) }
        #expect(table.count == 10_000)
        let copy = table
        table.set(12_345, 99)
        #expect(copy.find(12_345) == nil, "copies do not see later changes")
        #expect(table.find(12_345) == 99)
        for key in stride(from: UInt64(0), to: 10_000, by: 97) {
            #expect(table.find(key &* 0x9E37_79B9_7F4A_7C15) == key + 1)
        }
        #expect(table.find(0xDEAD_BEEF) == nil)
    }

    @Test func reservingRoomKeepsEveryEntryAndLeavesRoomForTheBatch() {
        var table = HashTable64()
        for key in 1...UInt64(1_000) { table.set(key &* 0x9E37_79B9_7F4A_7C15, key) }
        let shared = table
        table.reserve(300_000)  // past 2 MiB: the populated, mapped storage
        #expect(table.count == 1_000 && shared.count == 1_000)
        for key in 1...UInt64(1_000) { #expect(table.find(key &* 0x9E37_79B9_7F4A_7C15) == key) }
        for key in 1_001...UInt64(301_000) { table.set(key &* 0x9E37_79B9_7F4A_7C15, key) }
        #expect(table.count == 301_000)
        for key in stride(from: UInt64(1), through: 301_000, by: 101) {
            #expect(table.find(key &* 0x9E37_79B9_7F4A_7C15) == key)
        }
        table.reserve(10)  // room already: nothing changes
        #expect(table.count == 301_000 && shared.find(1_001 &* 0x9E37_79B9_7F4A_7C15) == nil)
    }

    /// Large arrays and tables in huge pages hold what small ones hold; where the kernel has transparent huge
    /// pages for advised memory, an array of 64 MiB made that way is at least partly in them (how much depends on
    /// the free huge pages the machine has).
    @Test func hugePageMemoryHoldsWhatItIsGiven() throws {
        for count in [0, 1, 1_000, 3 << 20] {  // below a huge page, and 12 MiB of UInt32
            let array = [UInt32](hugePagesRepeating: 7, count: count)
            #expect(array.count == count && array.allSatisfy { $0 == 7 })
        }
        let mapped = try #require(HugePages.map(5 << 20, populate: true))
        #expect(mapped.count == 5 << 20 && mapped.allSatisfy { $0 == 0 })
        mapped[mapped.count - 1] = 9
        HugePages.unmap(mapped)
        var small = [UInt8](repeating: 1, count: 100)
        small.withUnsafeMutableBytes { HugePages.advise($0) }  // no aligned span: nothing to advise
        #expect(small.allSatisfy { $0 == 1 })

        let mode = (try? PosixFileSystem().readFile("/sys/kernel/mm/transparent_hugepage/enabled")) ?? []
        let text = String(decoding: mode, as: UTF8.self)
        guard text.contains("[madvise]") || text.contains("[always]") else { return }
        let big = [UInt64](hugePagesRepeating: 3, count: 8 << 20)
        let huge = big.withUnsafeBytes { Self.hugeKilobytes(in: $0) }
        #expect(huge >= 2 << 10, "\(huge) kB of 64 MiB in huge pages")
    }

    /// The kilobytes of anonymous huge pages `/proc/self/smaps` lists for the mappings `region` overlaps (advising
    /// part of a mapping splits it: the huge pages are in the advised part).
    private static func hugeKilobytes(in region: UnsafeRawBufferPointer) -> Int {
        // Read to its end: procfs files state no size.
        guard let file = fopen("/proc/self/smaps", "r") else { return 0 }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = fread(&chunk, 1, chunk.count, file)
            if got <= 0 { break }
            bytes += chunk[..<got]
        }
        let start = UInt(bitPattern: region.baseAddress)
        let end = start + UInt(region.count)
        var overlaps = false
        var total = 0
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                overlaps = bounds.count == 2 && bounds[0] < end && start < bounds[1]
            } else if overlaps, fields.first == "AnonHugePages:", fields.count >= 2 {
                total += Int(fields[1]) ?? 0
            }
        }
        return total
    }

    @Test func aSubjectIndexWhoseLinksPointForwardIsRefused() {
        var index = SubjectIndex()
        for seq in 1...UInt64(5) { index.insert(hash: 77, seq: seq) }
        #expect(index.candidates(hash: 77) == [1, 2, 3, 4, 5])
        let good = index.encoded()
        #expect(SubjectIndex.decode(good)?.candidates(hash: 77) == [1, 2, 3, 4, 5])
        // The links follow the 5 seqs (8 + 5 × 8 bytes in): make the first posting link to the last (a loop).
        var looping = good
        looping[8 + 5 * 8] = 5
        #expect(SubjectIndex.decode(looping) == nil)
    }

    @Test func keysWhoseHashesCollideAreStillTellApart() {
        var index = KeyIndex()
        let keys = [UInt64(1): "first", 2: "second", 3: "third"]
        index.insert("first", hash: 42, seq: 1)
        index.insert("second", hash: 42, seq: 2)  // same hash, different key
        index.insert("third", hash: 7, seq: 3)
        let keyOf = { (seq: UInt64) in keys[seq] }
        #expect(index.seq(for: "first", hash: 42, keyOf: keyOf) == 1)
        #expect(index.seq(for: "second", hash: 42, keyOf: keyOf) == 2)
        #expect(index.seq(for: "fourth", hash: 42, keyOf: keyOf) == nil)
        #expect(index.seq(for: "third", hash: 7, keyOf: keyOf) == 3)
        let reloaded = KeyIndex.decode(index.encoded())
        #expect(reloaded?.seq(for: "second", hash: 42, keyOf: keyOf) == 2)
        #expect(reloaded?.count == 3)
    }

    @Test func subjectPostingsComeBackInOrderAndSurviveEncoding() {
        var index = SubjectIndex()
        for seq in UInt64(1)...20 {
            let hashes: [UInt64] = [seq % 3 + 10, 100, seq % 3 + 10]  // a subject named twice counts once
            index.insert(seq: seq, count: hashes.count) { hashes[$0] }
        }
        #expect(index.candidates(hash: 100) == Array(1...20))
        #expect(index.candidates(hash: 11) == [1, 4, 7, 10, 13, 16, 19])
        #expect(index.candidates(hash: 55).isEmpty)
        let reloaded = SubjectIndex.decode(index.encoded())
        #expect(reloaded?.candidates(hash: 12) == [2, 5, 8, 11, 14, 17, 20])
        #expect(SubjectIndex.decode(Array(index.encoded().dropLast())) == nil, "a truncated file is rejected")
    }

    @Test func groupedPostingsAndTheTailAnswerTogetherAndSurviveEncoding() throws {
        var index = SubjectIndex()
        for seq in UInt64(1)...20 { index.insert(seq: seq, count: 2) { [seq % 3 + 10, 100][$0] } }
        // Loaded: every posting grouped, its records' offsets not yet placed.
        var loaded = try #require(SubjectIndex.decode(index.encoded()))
        #expect(loaded.grouped.count == 40 && loaded.postings.isEmpty)
        #expect(MemoryLayout<SubjectIndex.PlacedPosting>.stride == 12)
        #expect(MemoryLayout<SubjectIndex.Posting>.stride == 12)
        for seq in UInt64(21)...30 { loaded.insert(seq: seq, count: 2) { [seq % 3 + 10, seq % 2 + 200][$0] } }
        #expect(loaded.candidates(hash: 100) == Array(1...20))
        #expect(loaded.candidates(hash: 11) == [1, 4, 7, 10, 13, 16, 19, 22, 25, 28])
        #expect(loaded.candidates(hash: 201) == [21, 23, 25, 27, 29])
        #expect(loaded.candidates(hash: 55).isEmpty)
        let placed = loaded.placedCandidates(hash: 11)
        #expect(placed.offsets == Array(repeating: SubjectIndex.unknownOffset, count: 10))
        #expect(loaded.subjectCount == 3 + 1 + 2)
        // Written back (groups first, then the tail linked to them), every subject reads the same.
        let bytes = loaded.encoded()
        let again = try #require(SubjectIndex.decode(bytes))
        for hash: UInt64 in [10, 11, 12, 100, 200, 201, 55] {
            #expect(again.candidates(hash: hash) == loaded.candidates(hash: hash), "\(hash)")
        }
        #expect(again.subjectCount == 6 && again.postings.isEmpty)
        // A group whose seqs do not ascend is refused: the seqs of the first group's first two postings swapped.
        var descending = bytes
        let seqs = 8
        let first = descending[seqs..<(seqs + 8)]
        descending.replaceSubrange(seqs..<(seqs + 8), with: descending[(seqs + 8)..<(seqs + 16)])
        descending.replaceSubrange((seqs + 8)..<(seqs + 16), with: first)
        #expect(SubjectIndex.decode(descending) == nil)
    }

    @Test func aLoadedIndexPlacesEachRecordAndAWrongPlaceFallsBackToTheSegmentsOffsets() throws {
        let temp = TempDirectory()
        let options = LogOptions(segmentSize: 16 << 10)
        do {
            let writer = try openWriter(temp.data, options: options)
            defer { writer.close() }
            for n in 1...300 { _ = try writer.append(entry(n, payloadSize: [40, 900, 3_000][n % 3])) }
        }
        let log = try EventLog.openReader(at: temp.data)
        defer { log.close() }
        #expect(log.seqs(forSubjectKey: "user:3").count == 43)  // loads the index files
        let (index, segments) = log.lock.withLock { (log.state.indexes.subjects, log.state.segments) }
        #expect(segments.count > 10)
        for key in ["user:3", "otid:2000005"] {
            let candidates = index.placedCandidates(hash: StableHash.hash(key))
            #expect(!candidates.seqs.isEmpty)
            for (seq, offset) in zip(candidates.seqs, candidates.offsets) {
                #expect(Int64(offset) == (try log.record(seq: seq)).offset, "\(key) \(seq)")
            }
            // Places that are wrong (another record's, a byte inside a record, past the segment) or unknown:
            // every record is still found by its segment's offsets, and only it.
            var wrong = candidates.offsets
            for position in wrong.indices {
                let others = [
                    candidates.offsets[(position + 1) % wrong.count], wrong[position] + 7, 1 << 30,
                    SubjectIndex.unknownOffset,
                ]
                wrong[position] = others[position % 4]
            }
            var reader = SubjectReader(fileSystem: log.fileSystem, segments: segments, maps: log.segmentMaps)
            var seen: [UInt64] = []
            try reader.forEach(candidates.seqs, offsets: wrong) { seen.append($0.seq) }
            #expect(seen == candidates.seqs, "\(key)")
        }
    }
}
