/// A fast 64-bit hash of key bytes that is the same in every process (unlike `Hasher`, which is seeded per
/// process), so it can be persisted in index files. Not cryptographic: lookups confirm by reading the record.
enum StableHash {
    @inline(__always)
    private static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 33
        x &*= 0xff51_afd7_ed55_8ccd
        x ^= x >> 33
        x &*= 0xc4ce_b9fe_1a85_ec53
        x ^= x >> 33
        return x
    }

    /// The hash of some bytes.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        guard let base = bytes.baseAddress else { return mix(state) }
        var position = 0
        while position + 8 <= bytes.count {
            state = mix(state ^ UInt64(littleEndian: base.loadUnaligned(fromByteOffset: position, as: UInt64.self)))
            position += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while position < bytes.count {
            tail |= UInt64(base.load(fromByteOffset: position, as: UInt8.self)) << shift
            shift += 8
            position += 1
        }
        return mix(state ^ tail ^ 0x1234_5678_9ABC_DEF1)
    }

    /// The hash of a string's UTF-8 bytes.
    static func hash(_ text: String) -> UInt64 {
        var copy = text
        return copy.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }
}
