/// The identity scheme of the Visla app: the iOS app passes the user id as `appAccountToken`,
/// formatted as `%08x` of the id followed by `-0000-0000-0000-000000000000`.
public enum AccountToken {
    /// The canonical (lower-case) token for a user id, e.g. 42 → `0000002a-0000-0000-0000-000000000000`.
    /// Nil for ids that do not fit the scheme's 32 bits.
    public static func token(forUser userId: Int64) -> String? {
        guard userId >= 0, userId <= Int64(UInt32.max) else { return nil }
        return String(unsafeUninitializedCapacity: 36) { buffer in
            let digits: StaticString = "0123456789abcdef"
            for position in 0..<8 {
                let nibble = Int(userId >> (4 * Int64(7 - position)) & 0xF)
                buffer[position] = digits.utf8Start[nibble]
            }
            for position in 8..<36 {
                buffer[position] = position == 8 || position == 13 || position == 18 || position == 23 ? 45 : 48
            }
            return 36
        }
    }

    /// A user id as a request or a command line writes it: decimal digits only, no sign, no leading zero, from 0
    /// to 2³² − 1 (the ids the token scheme can carry); nil for anything else, so that one user has one spelling.
    public static func userId(text: String) -> Int64? {
        let digits = text.utf8
        guard !digits.isEmpty, digits.count <= 10, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            digits.count == 1 || digits.first != 0x30, let id = Int64(text), id <= Int64(UInt32.max)
        else { return nil }
        return id
    }

    /// The user id a token encodes, when it follows the scheme; nil for any other UUID.
    public static func userId(fromToken token: String) -> Int64? {
        guard token.utf8.count == 36 else { return nil }
        var copy = token
        return copy.withUTF8 { utf8 -> Int64? in
            var value: Int64 = 0
            for position in 0..<8 {
                guard let digit = hexValue(utf8[position]) else { return nil }
                value = value << 4 | Int64(digit)
            }
            for position in 8..<36 {
                let expected: UInt8 = position == 8 || position == 13 || position == 18 || position == 23 ? 45 : 48
                guard utf8[position] == expected else { return nil }  // '-' or '0'
            }
            return value
        }
    }

    /// The canonical lower-case form of a UUID string; nil if it is not a UUID.
    ///
    /// A string already in canonical form is returned as is, without allocating.
    public static func canonical(_ uuid: String) -> String? {
        guard uuid.utf8.count == 36 else { return nil }
        var copy = uuid
        let verdict = copy.withUTF8 { utf8 -> Bool? in
            var upper = false
            for position in 0..<36 {
                let byte = utf8[position]
                if position == 8 || position == 13 || position == 18 || position == 23 {
                    guard byte == 45 else { return nil }  // '-'
                } else if byte >= 65 && byte <= 70 {
                    upper = true
                } else if !(byte >= 48 && byte <= 57) && !(byte >= 97 && byte <= 102) {
                    return nil
                }
            }
            return upper
        }
        guard let needsLowering = verdict else { return nil }
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
