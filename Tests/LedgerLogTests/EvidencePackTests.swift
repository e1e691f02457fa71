import LedgerCrypto
import LedgerStore
import LedgerSystem
import Testing

@testable import LedgerLog

#if canImport(Glibc)
    import Glibc
#endif

/// A signed-payload-like body of `size` bytes, distinct per `n`.
func body(_ n: Int, size: Int = 60) -> [UInt8] {
    let text = Array("eyJhbGciOiJFUzI1NiJ9.notification-\(n).".utf8)
    return (0..<size).map { text[$0 % text.count] &+ UInt8(truncatingIfNeeded: $0 / text.count) }
}

/// The pack files of a data directory, in order.
func packPaths(_ dir: String) -> [String] {
    let names = (try? PosixFileSystem().readDirectory(dir + "/evidence")) ?? []
    return names.filter { $0.hasPrefix("pack-") }.sorted().map { dir + "/evidence/" + $0 }
}

/// The size of a file.
func fileSize(_ path: String) -> Int64 { ((try? PosixFileSystem().stat(path)) ?? nil)?.size ?? -1 }

/// Cuts a file to `size` bytes.
func truncateFile(_ path: String, to size: Int64) {
    #expect(truncate(path, off_t(size)) == 0)
}

/// Evidence packs: framing, dedupe, the index, the old per-file layout and rolling.
@Suite struct EvidencePackTests {
    @Test func theSameBytesAreStoredOnce() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        defer { log.close() }
        let (a, b) = (body(1), body(2))
        let digests = try log.putEvidence(batch: [a, b, a], durable: false)
        #expect(digests == [SHA256.hash(a), SHA256.hash(b), SHA256.hash(a)])
        let size = fileSize(try #require(packPaths(temp.data).first))
        #expect(size == Int64(2 * (EvidencePack.headerSize + 60)))
        let where_ = try #require(log.evidenceLocation(digests[0]))
        #expect(try log.putEvidence(a) == digests[0])  // a retry of the same body
        #expect(try log.putEvidence(batch: [b, a]) == [digests[1], digests[0]])
        #expect(fileSize(packPaths(temp.data)[0]) == size)
        #expect(log.evidenceLocation(digests[0])! == where_)
        #expect(where_.offset == 0 && where_.length == 60 && where_.path.hasSuffix("/evidence/pack-00000001"))
        #expect(try log.evidence(digests[0]) == a)
        #expect(try log.evidence(digests[1]) == b)
        #expect(try log.evidence([UInt8](repeating: 9, count: 32)) == nil)
    }

    @Test func anEntryIsFramedAsDocumented() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        let piece = body(7, size: 10)
        let digest = try log.putEvidence(piece)
        log.close()
        let bytes = readBytes(packPaths(temp.data)[0])
        #expect(bytes.count == 66)
        #expect(Array(bytes[0..<4]) == Array("LEVP".utf8))
        #expect(Array(bytes[4..<12]) == [1, 0, 0, 0, 10, 0, 0, 0])
        let bodyCRC = CRC32C.checksum(piece)
        #expect(Array(bytes[12..<16]) == withUnsafeBytes(of: bodyCRC.littleEndian) { Array($0) })
        #expect(Array(bytes[16..<48]) == digest)
        let headerCRC = CRC32C.checksum(bytes[0..<48])
        #expect(Array(bytes[48..<52]) == withUnsafeBytes(of: headerCRC.littleEndian) { Array($0) })
        #expect(Array(bytes[52..<56]) == [0, 0, 0, 0])
        #expect(Array(bytes[56...]) == piece)
    }

    @Test func aLargeBatchOfMixedSizesIsFramedEntryAfterEntry() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        // Some 2 MB in one put: small bodies, with bodies of 128 KiB and 384 KiB between them.
        let sizes = (0..<300).map { $0 % 50 == 7 ? (1 << 17) + $0 : $0 % 97 == 3 ? 3 << 17 : 4_000 }
        let bodies = sizes.enumerated().map { body($0.offset, size: $0.element) }
        let digests = try log.putEvidence(batch: bodies, durable: true)
        log.close()
        let bytes = readBytes(packPaths(temp.data)[0])
        #expect(bytes.count == sizes.reduce(0) { $0 + EvidencePack.headerSize + $1 })
        var offset = 0
        for (piece, digest) in zip(bodies, digests) {
            let header = bytes.withUnsafeBytes { EvidencePack.decodeHeader($0.baseAddress! + offset) }
            #expect(header?.digest == EvidenceDigest(digest) && header?.length == piece.count)
            offset += EvidencePack.headerSize
            #expect(Array(bytes[offset..<(offset + piece.count)]) == piece)
            offset += piece.count
        }
        let reopened = try openWriter(temp.data)
        defer { reopened.close() }
        for (piece, digest) in zip(bodies, digests) { #expect(try reopened.evidence(digest) == piece) }
    }

    @Test func evidenceWrittenPerFileByEarlierVersionsIsStillFound() throws {
        let temp = TempDirectory()
        let old = body(3)
        let digest = SHA256.hash(old)
        do {
            let log = try openWriter(temp.data)
            let path = log.evidencePath(digest)
            try PosixFileSystem().createDirectories(Path.parent(of: path))
            writeBytes(path, old)
            log.close()
        }
        let log = try openWriter(temp.data)
        #expect(try log.evidence(digest) == old)
        #expect(try log.putEvidence(old) == digest)
        #expect(log.evidenceLocation(digest) == nil, "stored once: the old file is kept, no pack copy")
        let new = body(4)
        let newDigest = try log.putEvidence(new)
        #expect(log.evidenceLocation(newDigest) != nil)
        log.close()
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        #expect(try reader.evidence(digest) == old)
        #expect(try reader.evidence(newDigest) == new)
        // A damaged old file is still reported as damaged.
        var damaged = old
        damaged[5] ^= 1
        writeBytes(reader.evidencePath(digest), damaged)
        #expect(throws: LogError(.evidenceDamaged, "")) { try reader.evidence(digest) }
    }

    @Test func packsRollAtTheirSizeAndEverythingStaysReadable() throws {
        let temp = TempDirectory()
        let options = LogOptions(evidencePackSize: 1000)
        var pieces: [[UInt8]] = []
        do {
            let log = try openWriter(temp.data, options: options)
            for n in 0..<40 {
                pieces.append(body(n, size: 100 + n))
                _ = try log.putEvidence(batch: [pieces[n]], durable: false)
                var record = entry(n)
                record.payload = SHA256.hash(pieces[n])
                _ = try log.append([record], syncingEvidenceFirst: true)
            }
            for piece in pieces { #expect(try log.evidence(SHA256.hash(piece)) == piece) }
            log.close()
        }
        let packs = packPaths(temp.data)
        #expect(packs.count >= 5)
        for pack in packs.dropLast() { #expect(fileSize(pack) >= 1000 && fileSize(pack) < 1000 + 200) }
        let log = try openWriter(temp.data, options: options)
        for piece in pieces { #expect(try log.evidence(SHA256.hash(piece)) == piece) }
        log.close()
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        for piece in pieces { #expect(try reader.evidence(SHA256.hash(piece)) == piece) }
        #expect(try EventLog.verify(at: temp.data).ok)
    }

    @Test func aReaderFindsEvidenceStoredAfterItOpened() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        defer { log.close() }
        _ = try log.putEvidence(body(1))
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        #expect(try reader.evidence(SHA256.hash(body(1))) == body(1))
        let later = try log.putEvidence(body(2))
        #expect(try reader.evidence(later) == body(2))
    }

    @Test func concurrentWebhooksShareTheSyncAndLoseNothing() throws {
        let temp = TempDirectory()
        let log = try openWriter(temp.data)
        let threads = 8
        let perThread = 40
        runThreads(threads) { thread in
            for index in 0..<perThread {
                let n = thread * 1000 + index
                let piece = body(n, size: 2000)
                // Every third notification is a retry of an earlier body (Apple retries).
                let pieces = index % 3 == 2 ? [piece, body(n - 1, size: 2000)] : [piece]
                _ = try! log.putEvidence(batch: pieces, durable: false)
                var record = entry(n)
                record.payload = SHA256.hash(piece)
                _ = try! log.append([record], syncingEvidenceFirst: true)
            }
        }
        log.close()
        let reopened = try openWriter(temp.data)
        defer { reopened.close() }
        var count = 0
        try reopened.forEach { record in
            let found = try reopened.evidence(record.payload)
            #expect(found.map(SHA256.hash) == record.payload)
            count += 1
        }
        #expect(count == threads * perThread)
        #expect(fileSize(packPaths(temp.data)[0]) == Int64(threads * perThread * (EvidencePack.headerSize + 2000)))
        #expect(try EventLog.verify(at: temp.data).ok)
    }
}
