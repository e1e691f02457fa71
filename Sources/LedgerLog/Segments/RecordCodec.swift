import LedgerCrypto
import LedgerStore

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

    /// Record `seq` as the whole of `bytes`: one frame that fills them exactly and holds record `seq`, its checksum
    /// checked unless `checkCRC` is false; nil for anything else. How a read by position checks what it finds there.
    @inline(__always)
    static func record(_ seq: UInt64, filling bytes: UnsafeRawBufferPointer, checkCRC: Bool = true) -> LogRecordView? {
        guard let base = bytes.baseAddress,
            case .record(let view) = parse(base, available: bytes.count, checkCRC: checkCRC),
            view.seq == seq, view.frameSize == bytes.count
        else { return nil }
        return view
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

    /// The size of the frame `entry` encodes to: header, fixed fields, key, subjects, payload and hash.
    ///
    /// The entry is read in place (here and in ``fill(_:seq:recordedAt:size:at:subject:)``): passing an entry of
    /// the batch by value would copy it, retaining and releasing its key and both arrays for every record.
    @inline(__always)
    static func frameSize(_ entry: UnsafePointer<LogEntry>) -> Int {
        var size =
            LogFormat.frameHeaderSize + fixedBodySize + entry.pointee.idempotencyKey.utf8.count
            + entry.pointee.payload.count
        entry.pointee.subjectKeys.withUnsafeBufferPointer { subjects in
            for index in subjects.indices { size += 2 + subjects[index].utf8.count }
        }
        return size
    }

    /// The body bytes of a frame that do not depend on its contents' lengths: version, flags, seq, time, key
    /// length, subject count, payload length and the hash.
    static let fixedBodySize = 1 + 1 + 8 + 8 + 2 + 2 + 4 + LogFormat.hashSize

    /// Encodes one record's frame into the `size` bytes at `base` (`size` from ``frameSize(_:)``), chained
    /// after `previousHash`: the frame's last 32 bytes are its chain hash, SHA-256(previous ‖ body without the
    /// hash). `previousHash` may point into the same buffer (the previous frame's hash). Calls `subject` with the
    /// bytes of each subject key as written, so callers can hash them without touching the strings again.
    @inline(__always)
    static func encode(
        _ entry: UnsafePointer<LogEntry>, seq: UInt64, recordedAt: Int64, previousHash: UnsafeRawBufferPointer,
        size: Int, at base: UnsafeMutableRawPointer, subject: (UnsafeRawBufferPointer) -> Void = { _ in }
    ) {
        fill(entry, seq: seq, recordedAt: recordedAt, size: size, at: base, subject: subject)
        checksumBody(size: size, at: base)
        seal(size: size, at: base, previousHash: previousHash)
    }

    /// Writes every byte of a frame but its chain hash and checksum (``checksumBody(size:at:)`` and
    /// ``seal(size:at:previousHash:)`` add those): frames can be filled ahead while the chain, serial by nature, is
    /// hashed behind them.
    @inline(__always)
    static func fill(
        _ entry: UnsafePointer<LogEntry>, seq: UInt64, recordedAt: Int64, size: Int, at base: UnsafeMutableRawPointer,
        subject: (UnsafeRawBufferPointer) -> Void = { _ in }
    ) {
        let header = LogFormat.frameHeaderSize
        base.storeBytes(of: UInt32(size - header).littleEndian, as: UInt32.self)
        base.storeBytes(of: LogFormat.version, toByteOffset: 8, as: UInt8.self)
        base.storeBytes(of: 0, toByteOffset: 9, as: UInt8.self)  // flags
        base.storeBytes(of: seq.littleEndian, toByteOffset: 10, as: UInt64.self)
        base.storeBytes(of: recordedAt.littleEndian, toByteOffset: 18, as: Int64.self)
        var position = 26
        position += copyUTF8(entry.pointee.idempotencyKey, to: base + position)
        base.storeBytes(
            of: UInt16(entry.pointee.subjectKeys.count).littleEndian, toByteOffset: position, as: UInt16.self)
        position += 2
        entry.pointee.subjectKeys.withUnsafeBufferPointer { subjects in
            for index in subjects.indices {
                let length = copyUTF8(subjects[index], to: base + position)
                subject(UnsafeRawBufferPointer(start: base + position + 2, count: length - 2))
                position += length
            }
        }
        let payloadCount = entry.pointee.payload.count
        base.storeBytes(of: UInt32(payloadCount).littleEndian, toByteOffset: position, as: UInt32.self)
        position += 4
        entry.pointee.payload.withUnsafeBytes { payload in
            if let source = payload.baseAddress { (base + position).copyMemory(from: source, byteCount: payloadCount) }
        }
        position += payloadCount
        precondition(position + LogFormat.hashSize == size, "a frame's size does not match its entry")
    }

    /// Puts in a filled frame's checksum field the CRC-32C of its length and of its body up to the chain hash:
    /// the checksum without the hash, which ``seal(size:at:previousHash:)`` completes. (A CRC runs over its bytes
    /// in order, so the hash's 32 bytes can be added last: one thread checksums frames while another hashes.)
    @inline(__always)
    static func checksumBody(size: Int, at base: UnsafeMutableRawPointer) {
        let header = LogFormat.frameHeaderSize
        let crc = CRC32C.update(
            CRC32C.update(0, UnsafeRawBufferPointer(start: base, count: 4)),
            UnsafeRawBufferPointer(start: base + header, count: size - LogFormat.hashSize - header))
        base.storeBytes(of: crc.littleEndian, toByteOffset: 4, as: UInt32.self)
    }

    /// Completes a frame of `size` bytes at `base` filled and checksummed up to its hash
    /// (``checksumBody(size:at:)``): its chain hash, SHA-256(previous ‖ body without the hash), in its last 32
    /// bytes, then its CRC-32C over the length and the whole body.
    @inline(__always)
    static func seal(size: Int, at base: UnsafeMutableRawPointer, previousHash: UnsafeRawBufferPointer) {
        let header = LogFormat.frameHeaderSize
        let hashAt = size - LogFormat.hashSize
        var hasher = SHA256()
        hasher.update(previousHash)
        hasher.update(UnsafeRawBufferPointer(start: base + header, count: hashAt - header))
        hasher.finalize(into: base + hashAt)
        let body = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        let crc = CRC32C.update(body, UnsafeRawBufferPointer(start: base + hashAt, count: LogFormat.hashSize))
        base.storeBytes(of: crc.littleEndian, toByteOffset: 4, as: UInt32.self)
    }

    /// Writes a string as its length (u16 LE) and UTF-8 bytes at `target`; returns the bytes written.
    @inline(__always)
    static func copyUTF8(_ text: String, to target: UnsafeMutableRawPointer) -> Int {
        let count = text.utf8.count
        target.storeBytes(of: UInt16(count).littleEndian, as: UInt16.self)
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { utf8 in
            if let source = utf8.baseAddress { (target + 2).copyMemory(from: source, byteCount: count) }
        }
        if copied == nil {
            var copy = text
            copy.withUTF8 { utf8 in
                if let source = utf8.baseAddress { (target + 2).copyMemory(from: source, byteCount: count) }
            }
        }
        return 2 + count
    }

    /// The stable hash of a key, read in place where the string is contiguous (no copy of the string).
    @inline(__always)
    static func keyHash(_ text: String) -> UInt64 {
        text.utf8.withContiguousStorageIfAvailable { StableHash.hash(UnsafeRawBufferPointer($0)) }
            ?? StableHash.hash(text)
    }

    /// Appends one record's frame to `buffer` and returns its chain hash.
    static func append(
        into buffer: inout [UInt8], seq: UInt64, recordedAt: Int64, entry: LogEntry, previousHash: [UInt8]
    ) -> [UInt8] {
        let start = buffer.count
        withUnsafePointer(to: entry) { entry in
            let size = frameSize(entry)
            buffer.append(contentsOf: repeatElement(0, count: size))
            previousHash.withUnsafeBytes { previous in
                buffer.withUnsafeMutableBytes { raw in
                    encode(
                        entry, seq: seq, recordedAt: recordedAt, previousHash: previous, size: size,
                        at: raw.baseAddress! + start)
                }
            }
        }
        return Array(buffer[(buffer.count - LogFormat.hashSize)...])
    }
}
