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
        guard text.count % 4 == 0 else { return nil }
        var body = Array(text)
        var padding = 0
        while padding < 2, body.last == UInt8(ascii: "=") {
            body.removeLast()
            padding += 1
        }
        guard body.count % 4 != 1, (body.count + padding) % 4 == 0 else { return nil }
        guard padding == 0 || (body.count % 4) + padding == 4 else { return nil }
        return decodeBytes(body, table: standardTable)
    }

    /// Decodes standard base64 text.
    public static func decode(_ text: String) -> [UInt8]? { decode(text.utf8) }

    /// Decodes base64url without padding (RFC 7515 §2). Nil when malformed.
    public static func decodeURL<C: Collection<UInt8>>(_ text: C) -> [UInt8]? {
        guard text.count % 4 != 1 else { return nil }
        return decodeBytes(text, table: urlTable)
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

    /// Decodes unpadded text with a table; rejects foreign characters and non-zero trailing bits.
    private static func decodeBytes<C: Collection<UInt8>>(_ text: C, table: [UInt8]) -> [UInt8]? {
        var out = [UInt8]()
        out.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in text {
            let value = table[Int(byte)]
            guard value != 0xFF else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        guard accumulator == 0 else { return nil }
        return out
    }
}
