import LedgerSystem
import LedgerTesting
import Testing

@testable import LedgerCLI

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct SpoolTests {
    let directory = TemporaryDirectory()

    @Test func keepsTheLinesForASecondReadAndIsRemovedAfterwards() throws {
        let spool = try Spool(label: "test", in: directory.path)
        #expect(spool.path.hasPrefix(directory.path + "/ledger-test-"))
        let lines = (0..<3000).map { Array("line \($0) ".utf8) + [UInt8](repeating: 0x61, count: $0 % 700) }
        for line in lines { try spool.append(line) }
        try spool.flush()
        let read = try LineBatches(path: spool.path, batchSize: 1000, lineLimit: 1 << 20, chunkBytes: 4096)
        #expect(Array(read.joined()) == lines)
        #expect(read.failure == nil)
        spool.remove()
        #expect(access(spool.path, F_OK) != 0, "the spool is deleted")
        spool.remove()
    }

    @Test func aFullDiskIsAFailureNamingTheSpool() throws {
        let fileSystem = FaultInjectingFileSystem()
        let spool = try Spool(label: "test", in: directory.path, fileSystem: fileSystem)
        try spool.append(Array("first".utf8))
        try spool.flush()
        fileSystem.inject(Fault(.write, .error(ENOSPC)))
        try spool.append(Array("second".utf8))
        #expect {
            try spool.flush()
        } throws: { error in
            "\(error)".contains("cannot spool standard input to \(spool.path)")
        }
        fileSystem.clearFaults()
        try spool.flush()
        let read = try LineBatches(path: spool.path, batchSize: 10, lineLimit: 100)
        #expect(Array(read.joined()) == [Array("first".utf8), Array("second".utf8)], "nothing lost, nothing doubled")
        spool.remove()
    }

    @Test func aDirectoryThatCannotTakeAFileIsAFailure() {
        #expect(throws: CLIError.self) { try Spool(label: "test", in: directory.path + "/missing") }
    }
}
