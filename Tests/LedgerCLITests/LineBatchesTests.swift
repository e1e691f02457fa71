import LedgerCrypto
import LedgerTesting
import Testing

@testable import LedgerCLI

@Suite struct LineBatchesTests {
    let directory = TemporaryDirectory()

    func input(_ text: String) -> String {
        let path = directory.path + "/input.jsonl"
        write(path, text)
        return path
    }

    func read(_ lines: LineBatches) -> [[String]] {
        lines.map { batch in batch.map { String(decoding: $0, as: UTF8.self) } }
    }

    @Test func linesSplitAcrossChunksComeOutWholeInBatches() throws {
        let lines = (1...23).map { #"{"line":\#($0),"pad":"\#(String(repeating: "x", count: $0 * 3))"}"# }
        let text = lines.joined(separator: "\n") + "\n"
        for chunk in [1, 2, 7, 64, 1 << 20] {
            let batches = try LineBatches(path: input(text), batchSize: 5, lineLimit: 1 << 20, chunkBytes: chunk)
            let read = read(batches)
            #expect(read.map(\.count) == [5, 5, 5, 5, 3], "chunk \(chunk)")
            #expect(read.flatMap { $0 } == lines, "chunk \(chunk)")
            #expect(batches.failure == nil)
            #expect(batches.totalBytes == Int64(text.utf8.count))
            #expect(batches.consumedBytes == Int64(text.utf8.count))
        }
    }

    @Test func blankLinesAreSkippedAndTheLastLineNeedsNoNewline() throws {
        let text = "\n{\"a\":1}\n   \n\t\r\n\n{\"b\":2}\r\n{\"c\":3}"
        let batches = try LineBatches(path: input(text), batchSize: 10, lineLimit: 100, chunkBytes: 4)
        #expect(read(batches) == [[#"{"a":1}"#, "{\"b\":2}\r", #"{"c":3}"#]])
        #expect(batches.failure == nil)
    }

    @Test func aByteOrderMarkAtTheStartIsNotPartOfTheFirstLine() throws {
        let text = "\u{FEFF}{\"a\":1}\n\u{FEFF}{\"b\":2}\n"
        for chunk in [1, 2, 64] {
            let batches = try LineBatches(path: input(text), batchSize: 10, lineLimit: 100, chunkBytes: chunk)
            // Only the file's start: a mark inside the input is the line's, for verification to refuse.
            #expect(read(batches) == [[#"{"a":1}"#, "\u{FEFF}{\"b\":2}"]], "chunk \(chunk)")
            #expect(batches.consumedBytes == Int64(text.utf8.count))
        }
        #expect(read(try LineBatches(path: input("\u{FEFF}\n"), batchSize: 10, lineLimit: 100)).isEmpty)
    }

    @Test func anEmptyInputHasNoBatches() throws {
        #expect(read(try LineBatches(path: input(""), batchSize: 10, lineLimit: 100)).isEmpty)
        #expect(read(try LineBatches(path: input("\n \n"), batchSize: 10, lineLimit: 100)).isEmpty)
    }

    /// A line over the limit is read through, not held: set aside with its first bytes, size and SHA-256, and
    /// the lines after it follow.
    @Test func anOverlongLineIsSetAsideAndTheLinesAfterItFollow() throws {
        let long = String(repeating: "y", count: 300)
        let text = "{\"a\":1}\n{\"b\":2}\n" + long + "\n{\"c\":3}\n" + long + "z"
        for chunk in [8, 100, 1 << 20] {
            let batches = try LineBatches(
                path: input(text), batchSize: 1, lineLimit: 100, chunkBytes: chunk, keptBytes: 16)
            #expect(read(batches) == [[#"{"a":1}"#], [#"{"b":2}"#], [#"{"c":3}"#]], "chunk \(chunk)")
            #expect(batches.failure == nil)
            #expect(batches.consumedBytes == Int64(text.utf8.count))
            let set = batches.takeOversized()
            #expect(set.map(\.number) == [3, 5])
            #expect(set.map(\.size) == [300, 301])
            #expect(set.map(\.sha256) == [SHA256.hash(Array(long.utf8)), SHA256.hash(Array((long + "z").utf8))])
            #expect(set.allSatisfy { $0.prefix == Array(repeating: UInt8(ascii: "y"), count: 16) })
            #expect(set.first?.reason.hasPrefix("line 3 of \(directory.path)/input.jsonl is 300 bytes") == true)
            #expect(batches.takeOversized().isEmpty, "taken once")
        }
    }

    /// Skipping a line far over the limit reads it a buffer at a time: the buffer grows only to hold the limit.
    @Test func skippingAHugeLineDoesNotGrowTheBuffer() throws {
        let text = String(repeating: "y", count: 200_000) + "\n{\"a\":1}\n"
        let batches = try LineBatches(path: input(text), batchSize: 10, lineLimit: 100, chunkBytes: 8)
        #expect(read(batches) == [[#"{"a":1}"#]])
        #expect(batches.takeOversized().map(\.size) == [200_000])
        #expect(batches.bufferBytes == 101, "the limit and one byte to see the line is longer")
    }

    @Test func aMissingFileIsAClearFailure() {
        #expect(throws: CLIError.self) {
            _ = try LineBatches(path: directory.path + "/missing.jsonl", batchSize: 1, lineLimit: 1)
        }
    }
}
