import CCPU

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as used by iSCSI, ext4 and Kafka.
///
/// Uses the CPU's crc32 instruction when it has one (SSE 4.2, arm64 CRC; through the small `CCPU` C target,
/// since Swift has no intrinsics, and on x86-64 three chains of it at once over buffers of 384 bytes or more), four
/// to eight times faster; otherwise slicing-by-16 in Swift: sixteen 256-entry tables fold sixteen bytes per step.
/// Both give identical results.
/// The standard check value: `CRC32C.checksum("123456789".utf8)` is `0xE3069283`.
public enum CRC32C {
    /// Whether the CPU's crc32 instruction is used.
    public static let usesHardware = ledger_crc32c_hardware() != 0
    /// Table k maps a byte to its CRC contribution k positions further back; 16 × 256 entries.
    // nonisolated(unsafe): written once by the lazy initialiser, then only read.
    @usableFromInline
    nonisolated(unsafe) static let table: UnsafePointer<UInt32> = {
        let table = UnsafeMutablePointer<UInt32>.allocate(capacity: 16 * 256)
        for index in 0..<256 {
            var crc = UInt32(index)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            table[index] = crc
        }
        for index in 0..<256 {
            var crc = table[index]
            for slice in 1..<16 {
                crc = table[Int(crc & 0xFF)] ^ (crc >> 8)
                table[slice * 256 + index] = crc
            }
        }
        return UnsafePointer(table)  // lives for the whole process
    }()

    @inline(__always)
    @usableFromInline
    static func fold(_ t: UnsafePointer<UInt32>, _ word: UInt64, _ slice: Int) -> UInt32 {
        let low = UInt32(truncatingIfNeeded: word)
        let high = UInt32(truncatingIfNeeded: word >> 32)
        let b = slice * 256
        return t[b + 7 * 256 + Int(low & 0xFF)] ^ t[b + 6 * 256 + Int((low >> 8) & 0xFF)]
            ^ t[b + 5 * 256 + Int((low >> 16) & 0xFF)] ^ t[b + 4 * 256 + Int(low >> 24)]
            ^ t[b + 3 * 256 + Int(high & 0xFF)] ^ t[b + 2 * 256 + Int((high >> 8) & 0xFF)]
            ^ t[b + 1 * 256 + Int((high >> 16) & 0xFF)] ^ t[b + Int(high >> 24)]
    }

    /// Continues a checksum over more bytes (start with 0).
    @inlinable
    public static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
        if usesHardware { return ledger_crc32c_update(crc, base, bytes.count) }
        return software(crc, bytes)
    }

    /// The portable slicing-by-16 implementation (also the reference the hardware path is tested against).
    @inlinable
    public static func software(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard var pointer = bytes.baseAddress, bytes.count > 0 else { return crc }
        var remaining = bytes.count
        var value = ~crc
        let t = table
        while remaining >= 16 {
            let first = UInt64(littleEndian: pointer.loadUnaligned(as: UInt64.self)) ^ UInt64(value)
            let second = UInt64(littleEndian: pointer.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            value = fold(t, first, 8) ^ fold(t, second, 0)
            pointer += 16
            remaining -= 16
        }
        if remaining >= 8 {
            value = fold(t, UInt64(littleEndian: pointer.loadUnaligned(as: UInt64.self)) ^ UInt64(value), 0)
            pointer += 8
            remaining -= 8
        }
        while remaining > 0 {
            value = t[Int((value ^ UInt32(pointer.load(as: UInt8.self))) & 0xFF)] ^ (value >> 8)
            pointer += 1
            remaining -= 1
        }
        return ~value
    }

    /// The checksum of some bytes.
    @inlinable
    public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        update(0, bytes)
    }

    /// The checksum of a byte sequence.
    public static func checksum<S: Sequence>(_ bytes: S) -> UInt32 where S.Element == UInt8 {
        let array = Array(bytes)
        return array.withUnsafeBytes { update(0, $0) }
    }
}
