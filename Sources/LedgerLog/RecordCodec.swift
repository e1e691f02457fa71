import LedgerCrypto

/// Encodes records into frames and reads frames back, checking everything a frame can check on its own.
///
/// A frame: body length (u32 LE), CRC-32C of the length and the body (u32 LE), then the body:
/// version (u8), flags (u8), seq (u64), recordedAt (i64), key length (u16) and key, subject count (u16) and each
/// subject as length (u16) and bytes, payload length (u32) and payload, then the 32-byte chain hash.
enum RecordCodec {
    /// What is at a position in a buffer.
    enum Parse {
        /// A whole, well-formed frame whose checksum matches.
        case record(LogRecordView)
        /// A frame of this total size starts here but the buffer holds less of it.
        case needBytes(Int)
        /// The bytes here are not a valid frame.
        case damaged(String)
        /// A well-formed frame written by a newer format version.
        case newerVersion(UInt8)
    }

    /// Reads the frame at `base` with `available` bytes in the buffer.
    @inline(__always)
    static func parse(_ base: UnsafeRawPointer, available: Int, checkCRC: Bool = true) -> Parse {
        let header = LogFormat.frameHeaderSize
        guard available >= header else { return .needBytes(header) }
        let bodyLength = Int(base.le32(0))
        guard bodyLength >= LogFormat.minBodySize, bodyLength <= LogFormat.maxBodySize else {
            return .damaged("the record length field (\(bodyLength)) is impossible")
        }
        let frameSize = header + bodyLength
        guard available >= frameSize else { return .needBytes(frameSize) }
        if checkCRC {
            let crc = CRC32C.update(
                CRC32C.update(0, UnsafeRawBufferPointer(start: base, count: 4)),
                UnsafeRawBufferPointer(start: base + header, count: bodyLength))
            guard crc == base.le32(4) else { return .damaged("the record fails its CRC-32C checksum") }
        }
        let version = base.load(fromByteOffset: 8, as: UInt8.self)
        if version > LogFormat.version { return .newerVersion(version) }
        guard version == 1, base.load(fromByteOffset: 9, as: UInt8.self) == 0 else {
            return .damaged("the record has an unknown version or flags")
        }
        let end = frameSize - 32  // where the hash starts
        let keyLength = Int(base.le16(26))
        var position = 28 + keyLength
        guard position + 2 <= end else { return .damaged("the record's key overruns it") }
        let subjectCount = Int(base.le16(position))
        position += 2
        let subjectsStart = position
        for _ in 0..<subjectCount {
            guard position + 2 <= end else { return .damaged("the record's subject keys overrun it") }
            position += 2 + Int(base.le16(position))
        }
        guard position + 4 <= end else { return .damaged("the record's subject keys overrun it") }
        let payloadLength = Int(base.le32(position))
        position += 4
        guard position + payloadLength == end else { return .damaged("the record's fields do not add up") }
        return .record(
            LogRecordView(
                base: base, bodyLength: bodyLength, keyLength: keyLength, subjectsStart: subjectsStart,
                subjectCount: subjectCount, payloadStart: position, payloadLength: payloadLength))
    }

    /// The chain hash of a record: SHA-256(previous hash ‖ body without its hash).
    static func chainHash(previous: [UInt8], body: UnsafeRawBufferPointer) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(previous)
        hasher.update(body)
        return hasher.finalize()
    }

    /// Appends one record's frame to `buffer` and returns its chain hash.
    static func append(
        into buffer: inout [UInt8], seq: UInt64, recordedAt: Int64, entry: LogEntry, previousHash: [UInt8]
    ) -> [UInt8] {
        let start = buffer.count
        buffer.appendLE(UInt32(0))  // length, patched below
        buffer.appendLE(UInt32(0))  // CRC, patched below
        buffer.append(LogFormat.version)
        buffer.append(0)  // flags
        buffer.appendLE(seq)
        buffer.appendLE(recordedAt)
        var key = entry.idempotencyKey
        key.withUTF8 { utf8 in
            buffer.appendLE(UInt16(utf8.count))
            buffer.append(contentsOf: utf8)
        }
        buffer.appendLE(UInt16(entry.subjectKeys.count))
        for var subject in entry.subjectKeys {
            subject.withUTF8 { utf8 in
                buffer.appendLE(UInt16(utf8.count))
                buffer.append(contentsOf: utf8)
            }
        }
        buffer.appendLE(UInt32(entry.payload.count))
        buffer.append(contentsOf: entry.payload)
        let hashedEnd = buffer.count
        let hash = buffer.withUnsafeBytes { raw in
            chainHash(
                previous: previousHash,
                body: UnsafeRawBufferPointer(rebasing: raw[(start + LogFormat.frameHeaderSize)..<hashedEnd]))
        }
        buffer.append(contentsOf: hash)
        let bodyLength = buffer.count - start - LogFormat.frameHeaderSize
        buffer.storeLE(UInt32(bodyLength), at: start)
        let crc = buffer.withUnsafeBytes { raw in
            CRC32C.update(
                CRC32C.update(0, UnsafeRawBufferPointer(rebasing: raw[start..<(start + 4)])),
                UnsafeRawBufferPointer(rebasing: raw[(start + LogFormat.frameHeaderSize)...]))
        }
        buffer.storeLE(crc, at: start + 4)
        return hash
    }
}

extension LogFormat {
    /// The chain hash a record gets when it is stored as `seq` at `recordedAt` after a record whose hash is
    /// `previous`: SHA-256(previous ‖ the record's body without its hash), exactly as the file log computes it.
    /// Other stores (PostgreSQL) use it so that the same records give the same chain, and the same head hash.
    public static func chainHash(previous: [UInt8], seq: UInt64, recordedAt: Int64, entry: LogEntry) -> [UInt8] {
        var scratch: [UInt8] = []
        scratch.reserveCapacity(128 + entry.payload.count)
        return RecordCodec.append(
            into: &scratch, seq: seq, recordedAt: recordedAt, entry: entry, previousHash: previous)
    }
}
