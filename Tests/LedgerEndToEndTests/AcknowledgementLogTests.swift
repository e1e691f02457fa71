import LedgerSystem
import LedgerTesting
import Testing

/// The durability checks trust their acknowledgements file: lines from many threads never interleave, a reopened
/// file is appended to, and a line cut by a SIGKILL is dropped rather than misread.
@Suite struct AcknowledgementLogTests {
    let directory = TemporaryDirectory()

    @Test func linesFromManyThreadsReadBackWhole() throws {
        let path = directory.path + "/acks"
        let log = try AcknowledgementLog(path: path)
        runThreads(8) { thread in
            for index in 0..<500 { log.acknowledge(line: thread * 500 + index, seq: UInt64(thread * 500 + index + 1)) }
        }
        let acks = try AcknowledgementLog.read(path)
        #expect(acks.count == 4000)
        #expect(Set(acks.map(\.line)) == Set(0..<4000))
        #expect(acks.allSatisfy { $0.seq == UInt64($0.line + 1) })
    }

    @Test func aReopenedFileIsAppendedToAndACutLastLineIsDropped() throws {
        let path = directory.path + "/acks"
        try AcknowledgementLog(path: path).acknowledge(line: 0, seq: 7)
        try AcknowledgementLog(path: path).acknowledge(line: 1, seq: 9)
        let acks = try AcknowledgementLog.read(path)
        #expect(acks.map(\.line) == [0, 1] && acks.map(\.seq) == [7, 9])

        let fileSystem = PosixFileSystem()
        let whole = try #require(try fileSystem.readFile(path))
        try fileSystem.writeFileDurably(path, whole + Array("ack 2 1".utf8))
        #expect(try AcknowledgementLog.read(path).count == 2)
        #expect(try AcknowledgementLog.read(directory.path + "/missing").isEmpty)
    }
}
