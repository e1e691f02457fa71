/// The identity scheme of the Visla app: the iOS app passes the user id as `appAccountToken`,
/// formatted as `%08x` of the id followed by `-0000-0000-0000-000000000000`.
public enum AccountToken {
    /// The canonical (lower-case) token for a user id, e.g. 42 → `0000002a-0000-0000-0000-000000000000`.
    /// Nil for ids that do not fit the scheme's 32 bits.
    public static func token(forUser userId: Int64) -> String? {
        guard userId >= 0, userId <= Int64(UInt32.max) else { return nil }
        let hex = String(userId, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex + "-0000-0000-0000-000000000000"
    }

    /// The user id a token encodes, when it follows the scheme; nil for any other UUID.
    public static func userId(fromToken token: String) -> Int64? {
        let utf8 = Array(token.utf8)
        guard utf8.count == 36 else { return nil }
        let suffix = Array("-0000-0000-0000-000000000000".utf8)
        guard Array(utf8[8...]) == suffix else { return nil }
        var value: Int64 = 0
        for byte in utf8[0..<8] {
            guard let digit = hexValue(byte) else { return nil }
            value = value << 4 | Int64(digit)
        }
        return value
    }

    /// The canonical lower-case form of a UUID string; nil if it is not a UUID.
    ///
    /// A string already in canonical form is returned as is, without allocating.
    public static func canonical(_ uuid: String) -> String? {
        var needsLowering = false
        var count = 0
        for byte in uuid.utf8 {
            if count == 8 || count == 13 || count == 18 || count == 23 {
                guard byte == 45 else { return nil }  // '-'
            } else {
                guard hexValue(byte) != nil else { return nil }
                if byte >= 65 && byte <= 70 { needsLowering = true }
            }
            count += 1
            if count > 36 { return nil }
        }
        guard count == 36 else { return nil }
        guard needsLowering else { return uuid }
        return String(decoding: uuid.utf8.map { $0 >= 65 && $0 <= 70 ? $0 + 32 : $0 }, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: return byte - 48
        case 97...102: return byte - 87
        case 65...70: return byte - 55
        default: return nil
        }
    }
}
