import LedgerStore
import LedgerSystem
import Testing

@testable import LedgerLog

#if canImport(Glibc)
    import Glibc
#endif

/// A ``LogImage`` maps the last segment only where nothing can cut it while mapped: in the writer, or in a reader
/// while no writer holds the directory (seen by the writer's mark on the directory), and only while the head record is
/// still where the reader found it. Otherwise the last segment is read into memory, as before.
@Suite struct LogImageTailTests {
    let directory = TempDirectory()

    @Test func theWritersMarkIsSeenFromAnotherDescriptorUntilItIsClosed() throws {
        let fileSystem = PosixFileSystem()
        let holder = try fileSystem.open(directory.path, .directoryOnly)
        let looker = try fileSystem.open(directory.path, .directoryOnly)
        defer { try? fileSystem.close(looker) }
        #expect(try fileSystem.isMarkedHeld(looker) == false)
        try fileSystem.markHeld(holder)
        #expect(try fileSystem.isMarkedHeld(looker))
        try fileSystem.close(holder)
        #expect(try fileSystem.isMarkedHeld(looker) == false)
    }

    @Test func aReaderMapsTheLastSegmentOnlyWhileNoWriterHoldsTheDirectory() throws {
        let writer = try openWriter(directory.data)
        try appendEach(writer, 1...500, payloadSize: 300)
        #expect(writer.tailStaysWhole())
        let whileWriting = try EventLog.openReader(at: directory.data)
        defer { whileWriting.close() }
        #expect(!whileWriting.tailStaysWhole())
        let copied = try #require(try whileWriting.image())
        #expect(copied.copiedByteCount > 0)
        #expect(try #require(try writer.image()).copiedByteCount == 0)
        writer.close()

        #expect(whileWriting.tailStaysWhole())
        let mapped = try #require(try whileWriting.image())
        #expect(mapped.copiedByteCount == 0)
        for seq in 1...copied.headSeq {
            #expect(Array(try mapped.record(seq).payload) == Array(try copied.record(seq).payload))
        }
    }

    @Test func aWriterWhoseLOCKWasDeletedStillKeepsReadersFromMappingTheLastSegment() throws {
        let writer = try openWriter(directory.data)
        defer { writer.close() }
        try appendEach(writer, 1...50)
        unlink(directory.data + "/LOCK")
        let reader = try EventLog.openReader(at: directory.data)
        defer { reader.close() }
        #expect(!reader.tailStaysWhole())
        #expect(try #require(try reader.image()).copiedByteCount > 0)
    }

    @Test func aHeadRecordChangedSinceTheReaderOpenedIsReadIntoMemoryAndFoundDamaged() throws {
        let writer = try openWriter(directory.data)
        try appendEach(writer, 1...200, payloadSize: 300)
        writer.close()
        let reader = try EventLog.openReader(at: directory.data)
        defer { reader.close() }
        let head = try reader.record(seq: reader.head.seq)
        let path = segmentPaths(directory.data).last!
        var bytes = readBytes(path)
        bytes[Int(head.offset) + 20] ^= 0x40
        writeBytes(path, bytes)

        let image = try #require(try reader.image())
        #expect(image.copiedByteCount > 0)
        #expect(throws: LogError.self) { try image.record(reader.head.seq) }
        #expect(try image.record(reader.head.seq - 1).seq == reader.head.seq - 1)
    }
}
