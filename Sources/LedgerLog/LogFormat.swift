import LedgerCrypto

/// The constants of the on-disk format, version 1. `Events/README.md` documents every byte.
public enum LogFormat {
    /// The format version this program writes, and the newest it reads.
    public static let version: UInt8 = 1
    /// The eight bytes every segment file starts with.
    static let segmentMagic: [UInt8] = Array("LEDGRSEG".utf8)
    /// The size of a segment header.
    static let segmentHeaderSize = 128
    /// The longest environment name a segment header holds.
    static let maxEnvironmentLength = 63
    /// The frame prefix: body length (4) and CRC-32C (4).
    static let frameHeaderSize = 8
    /// The smallest body: version, flags, seq, time, key length, subject count, payload length, hash.
    static let minBodySize = 1 + 1 + 8 + 8 + 2 + 2 + 4 + 32
    /// The largest body accepted (16 MiB); a longer length field is damage.
    static let maxBodySize = 16 << 20
    /// The longest idempotency or subject key, in UTF-8 bytes.
    public static let maxKeyLength = 1024
    /// The most subject keys per record.
    public static let maxSubjectKeys = 64
    /// The largest payload, in bytes.
    public static let maxPayloadSize = maxBodySize - 64 * 1024
    /// The size of a chain hash.
    public static let hashSize = 32

    /// The chain's starting value for an environment: SHA-256 of `"ledger-log/1\0"` followed by the environment's
    /// UTF-8 bytes. Records of one environment cannot be spliced into another's chain.
    public static func genesis(environment: String) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(Array("ledger-log/1\0".utf8))
        hasher.update(Array(environment.utf8))
        return hasher.finalize()
    }

    /// The file name of the segment whose first record has `seq`: 20 decimal digits and `.seg`.
    static func segmentName(firstSeq: UInt64) -> String {
        let digits = String(firstSeq)
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".seg"
    }

    /// The first seq encoded in a segment file name, or nil when the name is not a segment's.
    static func firstSeq(segmentName name: String) -> UInt64? {
        guard name.hasSuffix(".seg"), name.utf8.count == 24 else { return nil }
        return UInt64(name.prefix(20))
    }
}

/// Little-endian reads from raw memory (unaligned).
extension UnsafeRawPointer {
    @inline(__always)
    func le16(_ offset: Int) -> UInt16 { UInt16(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self)) }
    @inline(__always)
    func le32(_ offset: Int) -> UInt32 { UInt32(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
    @inline(__always)
    func le64(_ offset: Int) -> UInt64 { UInt64(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
}

/// Little-endian appends to a byte array.
extension Array where Element == UInt8 {
    @inline(__always)
    mutating func appendLE<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    @inline(__always)
    mutating func storeLE<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        withUnsafeMutableBytes { $0.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self) }
    }
}
