import LedgerCrypto
import LedgerStore
import LedgerSystem
import Testing

@testable import LedgerLog

/// The in-place frame encoder against a frame laid out by hand from `Events/README.md`, and big batches (encoded
/// into one block, subjects hashed from the written bytes) against records appended one by one.
@Suite struct RecordCodecTests {
    /// A frame built field by field, independently of the encoder.
    private func handBuilt(_ entry: LogEntry, seq: UInt64, recordedAt: Int64, previous: [UInt8]) -> [UInt8] {
        var body: [UInt8] = [1, 0]
        body.appendLE(seq)
        body.appendLE(recordedAt)
        body.appendLE(UInt16(entry.idempotencyKey.utf8.count))
        body += Array(entry.idempotencyKey.utf8)
        body.appendLE(UInt16(entry.subjectKeys.count))
        for subject in entry.subjectKeys {
            body.appendLE(UInt16(subject.utf8.count))
            body += Array(subject.utf8)
        }
        body.appendLE(UInt32(entry.payload.count))
        body += entry.payload
        body += SHA256.hash(previous + body)
        var frame: [UInt8] = []
        frame.appendLE(UInt32(body.count))
        let length = frame
        frame.appendLE(CRC32C.checksum(length + body))
        return frame + body
    }

    @Test(arguments: [0, 1, 40, 700])
    func aFrameIsExactlyTheDocumentedBytes(payloadSize: Int) {
        var sample = entry(5, payloadSize: payloadSize)
        sample.subjectKeys.append("é-ünïcode:∑")
        let previous = (0..<32).map { UInt8($0 * 7 % 256) }
        var encoded: [UInt8] = []
        let hash = RecordCodec.append(
            into: &encoded, seq: 123_456, recordedAt: 1_767_225_600_123, entry: sample, previousHash: previous)
        let expected = handBuilt(sample, seq: 123_456, recordedAt: 1_767_225_600_123, previous: previous)
        #expect(encoded == expected)
        #expect(hash == Array(expected.suffix(32)))
        #expect(withUnsafePointer(to: sample) { RecordCodec.frameSize($0) } == expected.count)
    }

    @Test func aBigBatchWritesWhatOneByOneAppendsWrite() throws {
        let batched = TempDirectory()
        let single = TempDirectory()
        // Fixed times, so both logs must be byte for byte the same; duplicates within and across calls.
        let entries = (1...3_000).map { entry($0 % 2_500 + 1, payloadSize: 300 + $0 % 200, time: 1_000 + Int64($0)) }
        do {
            let log = try openWriter(batched.data)
            defer { log.close() }
            for first in stride(from: 0, to: entries.count, by: 1_200) {
                _ = try log.append(Array(entries[first..<min(first + 1_200, entries.count)]))
            }
        }
        do {
            let log = try openWriter(single.data)
            defer { log.close() }
            for item in entries { _ = try log.append(item) }
        }
        let batchedSegments = segmentPaths(batched.data)
        let singleSegments = segmentPaths(single.data)
        #expect(batchedSegments.count == singleSegments.count)
        for (a, b) in zip(batchedSegments, singleSegments) { #expect(readBytes(a) == readBytes(b)) }
        let log = try EventLog.openReader(at: batched.data)
        defer { log.close() }
        #expect(log.head.seq == 2_500)
        for n in [1, 17, 1_250, 2_500] {
            let key = "notification-\(n)"
            #expect(log.seq(forIdempotencyKey: key) != nil)
        }
        // The indexes built from the hashes of the written bytes answer like a rebuild from the files.
        let writer = try openWriter(batched.data)
        defer { writer.close() }
        let fromWrites = (0..<7).map { writer.seqs(forSubjectKey: "user:\($0)") }
        try writer.rebuildIndexes()
        #expect(fromWrites == (0..<7).map { writer.seqs(forSubjectKey: "user:\($0)") })
        #expect(try EventLog.verify(at: batched.data).ok)
    }

    @Test func indexesFollowABatchInTheSameProcess() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        defer { log.close() }
        let outcomes = try log.append((1...2_000).map { entry($0) } + [entry(3), entry(1_999)])
        #expect(outcomes.suffix(2) == [.duplicate(seq: 3), .duplicate(seq: 1_999)])
        #expect(try log.append(entry(77)) == .duplicate(seq: 77))
        let live = (0..<7).map { log.seqs(forSubjectKey: "user:\($0)") }
        #expect(live[3] == (1...2_000).filter { $0 % 7 == 3 }.map(UInt64.init))
        try log.rebuildIndexes()
        #expect(live == (0..<7).map { log.seqs(forSubjectKey: "user:\($0)") })
    }
}
