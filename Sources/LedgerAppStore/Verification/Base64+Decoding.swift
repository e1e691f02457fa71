extension Base64 {
    /// Decodes standard base64; the length must be a multiple of 4 (padding required). Nil when
    /// malformed.
    public static func decode<C: Collection<UInt8>>(_ text: C) -> [UInt8]? {
        if let decoded = text.withContiguousStorageIfAvailable({ decodeStandard($0) }) { return decoded }
        return Array(text).withUnsafeBufferPointer { decodeStandard($0) }
    }

    /// Decodes standard base64 text.
    public static func decode(_ text: String) -> [UInt8]? { decode(text.utf8) }

    /// Decodes base64url without padding (RFC 7515 §2). Nil when malformed.
    public static func decodeURL<C: Collection<UInt8>>(_ text: C) -> [UInt8]? {
        if let decoded = text.withContiguousStorageIfAvailable({ urlTable.decode($0) }) { return decoded }
        return Array(text).withUnsafeBufferPointer { urlTable.decode($0) }
    }

    /// Decodes base64url text without padding.
    public static func decodeURL(_ text: String) -> [UInt8]? { decodeURL(text.utf8) }

    /// Strips up to two `=` and decodes the rest, under RFC 4648's padding rules.
    private static func decodeStandard(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard text.count % 4 == 0 else { return nil }
        var count = text.count
        var padding = 0
        while padding < 2, count > 0, text[count - 1] == UInt8(ascii: "=") {
            count -= 1
            padding += 1
        }
        guard count % 4 != 1, padding == 0 || (count % 4) + padding == 4 else { return nil }
        return standardTable.decode(UnsafeBufferPointer(rebasing: text[..<count]))
    }

    /// One alphabet's decoding tables: for each of the four positions in a group of four characters,
    /// every byte's sextet already shifted into place (`18`, `12`, `6`, `0` bits), or `invalid` for a
    /// byte outside the alphabet. A group is then four lookups OR-ed together.
    struct DecodingTable: Sendable {
        /// The bits marking a byte outside the alphabet (a sextet never reaches them).
        static let invalid: UInt32 = 0xFF00_0000
        /// 4 × 256 entries, position-major.
        private let entries: [UInt32]

        init(_ alphabet: [UInt8]) {
            var entries = [UInt32](repeating: Self.invalid, count: 4 * 256)
            for (sextet, byte) in alphabet.enumerated() {
                for position in 0..<4 {
                    entries[position * 256 + Int(byte)] = UInt32(sextet) << UInt32(18 - 6 * position)
                }
            }
            self.entries = entries
        }

        /// Decodes unpadded text; nil for a foreign character, a length of 4n+1 or non-zero trailing
        /// bits. A group of four characters is read as one 32-bit load and written as one 32-bit store
        /// (its fourth byte is overwritten by the next group; the last group is written byte by byte).
        func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
            let remainder = text.count % 4
            guard remainder != 1 else { return nil }
            let groups = text.count / 4
            let outputCount = groups * 3 + (remainder == 0 ? 0 : remainder - 1)
            var invalid: UInt32 = 0
            let output = entries.withUnsafeBufferPointer { table in
                [UInt8](unsafeUninitializedCapacity: outputCount) { output, initialized in
                    guard let input = UnsafeRawPointer(text.baseAddress), let out = output.baseAddress else {
                        initialized = 0
                        return
                    }
                    let table = table.baseAddress!
                    func group(at offset: Int) -> UInt32 {
                        let word = UInt32(littleEndian: input.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                        return table[Int(word & 0xFF)] | table[256 + Int(word >> 8 & 0xFF)]
                            | table[512 + Int(word >> 16 & 0xFF)] | table[768 + Int(word >> 24)]
                    }
                    var written = 0
                    // Every group but the last: a 4-byte store whose extra byte the next group overwrites.
                    for index in 0..<max(0, groups - 1) {
                        let value = group(at: index * 4)
                        invalid |= value
                        UnsafeMutableRawPointer(out + written).storeBytes(
                            of: (value << 8).bigEndian, as: UInt32.self)
                        written += 3
                    }
                    if groups > 0 {
                        let value = group(at: (groups - 1) * 4)
                        invalid |= value
                        out[written] = UInt8(truncatingIfNeeded: value >> 16)
                        out[written + 1] = UInt8(truncatingIfNeeded: value >> 8)
                        out[written + 2] = UInt8(truncatingIfNeeded: value)
                        written += 3
                    }
                    if remainder >= 2 {
                        let read = groups * 4
                        var value = table[Int(text[read])] | table[256 + Int(text[read + 1])]
                        if remainder == 3 { value |= table[512 + Int(text[read + 2])] }
                        invalid |= value
                        out[written] = UInt8(truncatingIfNeeded: value >> 16)
                        if remainder == 3 { out[written + 1] = UInt8(truncatingIfNeeded: value >> 8) }
                        // The bits past the last whole byte must be zero (canonical encoding).
                        let trailing = remainder == 2 ? value & 0xFFFF : value & 0xFF
                        if trailing != 0 { invalid |= Self.invalid }
                    }
                    initialized = outputCount
                }
            }
            return invalid & Self.invalid == 0 ? output : nil
        }
    }
}
