import LedgerCrypto
import LedgerStore

/// The file log's constants of the on-disk format, version 1 (the store contract's are in `LedgerStore`).
/// `Events/README.md` documents every byte.
extension LogFormat {
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
