/// Byte constants and classes from RFC 9110/9112 used by the parsers.
enum ASCII {
    static let tab: UInt8 = 0x09
    static let lf: UInt8 = 0x0A
    static let cr: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let colon: UInt8 = 0x3A
    static let semicolon: UInt8 = 0x3B
    static let slash: UInt8 = 0x2F
    static let question: UInt8 = 0x3F
    static let percent: UInt8 = 0x25
    static let plus: UInt8 = 0x2B
    static let ampersand: UInt8 = 0x26
    static let equals: UInt8 = 0x3D
    static let delete: UInt8 = 0x7F

    /// The lowercase form of an ASCII letter; other bytes unchanged.
    @inline(__always)
    static func lower(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    /// Whether the byte may appear in a token (method, header name): RFC 9110 `tchar`.
    @inline(__always)
    static func isTokenChar(_ byte: UInt8) -> Bool {
        tokenTable[Int(byte)]
    }

    /// Whether the byte may appear in a header value: visible ASCII, space, tab and obs-text (0x80–0xFF).
    @inline(__always)
    static func isFieldValueChar(_ byte: UInt8) -> Bool {
        byte == tab || (byte >= space && byte != delete)
    }

    /// Whether the byte may appear in a request target: visible ASCII except the space; obs-text refused.
    @inline(__always)
    static func isTargetChar(_ byte: UInt8) -> Bool {
        byte > space && byte < delete
    }

    /// The value of a hexadecimal digit, or nil.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }

    private static let tokenTable: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in UInt8(0x30)...0x39 { table[Int(byte)] = true }
        for byte in UInt8(0x41)...0x5A { table[Int(byte)] = true }
        for byte in UInt8(0x61)...0x7A { table[Int(byte)] = true }
        for byte in "!#$%&'*+-.^_`|~".utf8 { table[Int(byte)] = true }
        return table
    }()
}
