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

    @Test func anEmptyInputHasNoBatches() throws {
        #expect(read(try LineBatches(path: input(""), batchSize: 10, lineLimit: 100)).isEmpty)
        #expect(read(try LineBatches(path: input("\n \n"), batchSize: 10, lineLimit: 100)).isEmpty)
    }

    @Test func anOverlongLineEndsTheInputAfterTheLinesBeforeIt() throws {
        let text = "{\"a\":1}\n{\"b\":2}\n" + String(repeating: "y", count: 300) + "\n{\"c\":3}\n"
        for chunk in [8, 1 << 20] {
            let batches = try LineBatches(path: input(text), batchSize: 1, lineLimit: 100, chunkBytes: chunk)
            #expect(read(batches) == [[#"{"a":1}"#], [#"{"b":2}"#]], "chunk \(chunk)")
            let failure = try #require(batches.failure)
            #expect(failure.message.contains("line 3 of"))
            #expect(failure.message.contains("longer than 100 bytes"))
        }
    }

    @Test func aMissingFileIsAClearFailure() {
        #expect(throws: CLIError.self) {
            _ = try LineBatches(path: directory.path + "/missing.jsonl", batchSize: 1, lineLimit: 1)
        }
    }
}
