/// Base64 (RFC 4648 §4, with padding) and base64url (§5, without padding, as JWS uses), strict in
/// both directions: no white space, no foreign characters, canonical trailing bits.
public enum Base64 {
    private static let standardAlphabet = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlAlphabet = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let standardTable = decodingTable(standardAlphabet)
    private static let urlTable = decodingTable(urlAlphabet)

    /// Standard base64 with `=` padding.
    public static func encode<C: Collection<UInt8>>(_ bytes: C) -> String {
        String(decoding: encodeBytes(bytes, alphabet: standardAlphabet, pad: true), as: UTF8.self)
    }

    /// base64url without padding.
    public static func encodeURL<C: Collection<UInt8>>(_ bytes: C) -> String {
        String(decoding: encodeBytes(bytes, alphabet: urlAlphabet, pad: false), as: UTF8.self)
    }

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
        if let decoded = text.withContiguousStorageIfAvailable({ decodeBytes($0, table: urlTable) }) {
            return decoded
        }
        return Array(text).withUnsafeBufferPointer { decodeBytes($0, table: urlTable) }
    }

    /// Decodes base64url text without padding.
    public static func decodeURL(_ text: String) -> [UInt8]? { decodeURL(text.utf8) }

    private static func decodingTable(_ alphabet: [UInt8]) -> [UInt8] {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }

    private static func encodeBytes<C: Collection<UInt8>>(_ bytes: C, alphabet: [UInt8], pad: Bool)
        -> [UInt8]
    {
        let input = Array(bytes)
        var out = [UInt8]()
        out.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= input.count {
            let value =
                UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            out.append(alphabet[Int(value >> 6 & 63)])
            out.append(alphabet[Int(value & 63)])
            index += 3
        }
        let rest = input.count - index
        if rest > 0 {
            var value = UInt32(input[index]) << 16
            if rest == 2 { value |= UInt32(input[index + 1]) << 8 }
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            if rest == 2 { out.append(alphabet[Int(value >> 6 & 63)]) }
            if pad { out += [UInt8](repeating: UInt8(ascii: "="), count: 3 - rest) }
        }
        return out
    }

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
        return decodeBytes(UnsafeBufferPointer(rebasing: text[..<count]), table: standardTable)
    }

    /// Decodes unpadded text with a table; rejects foreign characters, a length of 4n+1 and non-zero
    /// trailing bits. Four characters make three bytes per step, written straight into the result.
    private static func decodeBytes(_ text: UnsafeBufferPointer<UInt8>, table: [UInt8]) -> [UInt8]? {
        let remainder = text.count % 4
        guard remainder != 1 else { return nil }
        let groups = text.count / 4
        let outputCount = groups * 3 + (remainder == 0 ? 0 : remainder - 1)
        var valid = true
        let output = table.withUnsafeBufferPointer { table in
            [UInt8](unsafeUninitializedCapacity: outputCount) { output, initialized in
                // Every valid sextet is below 64: any of the two high bits set marks a foreign character.
                var invalid: UInt8 = 0
                var read = 0
                var written = 0
                for _ in 0..<groups {
                    let a = table[Int(text[read])]
                    let b = table[Int(text[read + 1])]
                    let c = table[Int(text[read + 2])]
                    let d = table[Int(text[read + 3])]
                    invalid |= a | b | c | d
                    let value = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    output[written] = UInt8(truncatingIfNeeded: value >> 16)
                    output[written + 1] = UInt8(truncatingIfNeeded: value >> 8)
                    output[written + 2] = UInt8(truncatingIfNeeded: value)
                    read += 4
                    written += 3
                }
                if remainder >= 2 {
                    let a = table[Int(text[read])]
                    let b = table[Int(text[read + 1])]
                    let c = remainder == 3 ? table[Int(text[read + 2])] : 0
                    invalid |= a | b | c
                    let value = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
                    output[written] = UInt8(truncatingIfNeeded: value >> 16)
                    if remainder == 3 { output[written + 1] = UInt8(truncatingIfNeeded: value >> 8) }
                    // The bits past the last whole byte must be zero (canonical encoding).
                    let trailing = remainder == 2 ? value & 0xFFFF : value & 0xFF
                    if trailing != 0 { invalid |= 0x80 }
                }
                valid = invalid & 0xC0 == 0
                initialized = outputCount
            }
        }
        return valid ? output : nil
    }
}
