import LedgerStore

/// A record seen in place during a scan, without copying: valid only inside the scan's closure.
public struct LogRecordView {
    @usableFromInline let base: UnsafeRawPointer
    @usableFromInline let bodyLength: Int
    @usableFromInline let keyLength: Int
    @usableFromInline let subjectsStart: Int
    @usableFromInline let subjectCount: Int
    @usableFromInline let payloadStart: Int
    @usableFromInline let payloadLength: Int

    /// Gap-free sequence number, starting at 1.
    public var seq: UInt64 { (base + 10).le64(0) }
    /// When it was appended, in ms since the epoch.
    public var recordedAt: Int64 { Int64(bitPattern: (base + 18).le64(0)) }
    /// The idempotency key's UTF-8 bytes.
    public var idempotencyKeyBytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + 28, count: keyLength)
    }
    /// The idempotency key.
    public var idempotencyKey: String { String(decoding: idempotencyKeyBytes, as: UTF8.self) }
    /// The payload bytes, in place.
    public var payload: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + payloadStart, count: payloadLength)
    }
    /// The chain hash bytes, in place.
    public var hash: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + LogFormat.frameHeaderSize + bodyLength - 32, count: 32)
    }
    /// The body bytes the chain hash covers (everything before the hash).
    var hashedBody: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + LogFormat.frameHeaderSize, count: bodyLength - 32)
    }
    /// The whole frame's size in bytes.
    public var frameSize: Int { LogFormat.frameHeaderSize + bodyLength }
    /// Whether the frame's CRC-32C matches its length and body: for a view parsed without checking it (see
    /// ``LogImage/record(_:checkCRC:)``).
    public var checksumMatches: Bool {
        let crc = CRC32C.update(
            CRC32C.update(0, UnsafeRawBufferPointer(start: base, count: 4)),
            UnsafeRawBufferPointer(start: base + LogFormat.frameHeaderSize, count: bodyLength))
        return crc == base.le32(4)
    }

    /// Calls `body` with each subject key's UTF-8 bytes.
    public func forEachSubjectKey(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        var position = subjectsStart
        for _ in 0..<subjectCount {
            let length = Int(base.le16(position))
            try body(UnsafeRawBufferPointer(start: base + position + 2, count: length))
            position += 2 + length
        }
    }

    /// Calls `body` with the stable 64-bit hash of each subject key: the hash the subject index keys it by, the
    /// same in every process. Distinct keys may share a hash (rarely); callers that must tell them apart compare
    /// the bytes.
    public func forEachSubjectKeyHash(_ body: (UInt64) throws -> Void) rethrows {
        try forEachSubjectKey { try body(StableHash.hash($0)) }
    }

    /// Calls `body` with a quick 64-bit hash of each subject key, for grouping in memory: cheaper than
    /// ``forEachSubjectKeyHash(_:)`` (one multiply a word), but not stable across versions, so never to be stored.
    /// Distinct keys may share a hash (rarely).
    @inlinable
    public func forEachSubjectKeyQuickHash(_ body: (UInt64) throws -> Void) rethrows {
        var position = subjectsStart
        for _ in 0..<subjectCount {
            let length = Int(UInt16(littleEndian: base.loadUnaligned(fromByteOffset: position, as: UInt16.self)))
            let key = base + position + 2
            var hash = UInt64(truncatingIfNeeded: length) &* 0x9E37_79B9_7F4A_7C15
            var at = 0
            while at + 8 <= length {
                hash =
                    (hash ^ UInt64(littleEndian: key.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
                    &* 0xBF58_476D_1CE4_E5B9
                hash ^= hash >> 29
                at += 8
            }
            if at < length {
                // The frame goes on for at least the 36 bytes of the payload length and chain hash after its last
                // key, so a whole word can be loaded past a key's end and the bytes beyond it masked off.
                let word = UInt64(littleEndian: key.loadUnaligned(fromByteOffset: at, as: UInt64.self))
                hash = (hash ^ (word & (~0 >> UInt64(64 - 8 * (length - at))))) &* 0xBF58_476D_1CE4_E5B9
            }
            hash ^= hash >> 32
            hash &*= 0x94D0_49BB_1331_11EB
            hash ^= hash >> 29
            try body(hash)
            position += 2 + length
        }
    }

    /// The subject keys.
    public var subjectKeys: [String] {
        var keys: [String] = []
        keys.reserveCapacity(subjectCount)
        forEachSubjectKey { keys.append(String(decoding: $0, as: UTF8.self)) }
        return keys
    }

    /// A copy that outlives the scan.
    public func record(segment: String, offset: Int64) -> LogRecord {
        LogRecord(
            seq: seq, recordedAt: recordedAt, idempotencyKey: idempotencyKey, subjectKeys: subjectKeys,
            payload: Array(payload), hash: Array(hash), segment: segment, offset: offset)
    }
}
