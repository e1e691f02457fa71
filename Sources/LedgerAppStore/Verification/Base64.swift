/// Base64 (RFC 4648 §4, with padding) and base64url (§5, without padding, as JWS uses), strict in
/// both directions: no white space, no foreign characters, canonical trailing bits.
public enum Base64 {
    static let standardAlphabet = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static let urlAlphabet = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    static let standardTable = DecodingTable(standardAlphabet)
    static let urlTable = DecodingTable(urlAlphabet)

    /// Standard base64 with `=` padding.
    public static func encode<C: Collection<UInt8>>(_ bytes: C) -> String {
        String(decoding: encodeBytes(bytes, alphabet: standardAlphabet, pad: true), as: UTF8.self)
    }

    /// base64url without padding.
    public static func encodeURL<C: Collection<UInt8>>(_ bytes: C) -> String {
        String(decoding: encodeBytes(bytes, alphabet: urlAlphabet, pad: false), as: UTF8.self)
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
}
