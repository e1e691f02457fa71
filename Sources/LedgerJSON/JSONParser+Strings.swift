extension JSONParser {
    mutating func parseString() throws(JSONError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: the first quote ends the string when nothing before it is a backslash or a control
        // character (`plainStringEnd`, 16 bytes per step); an all-ASCII string is then copied whole.
        if let (end, highBits) = plainStringEnd(from: start) {
            let slice = UnsafeBufferPointer(rebasing: bytes[start..<end])
            index = end + 1
            lastStringWasASCII = highBits == 0
            if highBits == 0 { return Self.asciiString(slice) }
            return try validated(slice, start: start)
        }
        lastStringWasASCII = false
        // Otherwise byte by byte, from the start: the exact offset of an error, escapes decoded.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return try validated(slice, start: start)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character in a string") }
            index += 1
        }
        var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try out.withUnsafeBufferPointer { buffer throws(JSONError) in
                    try validated(buffer, start: start)
                }
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unexpected end of input in a string") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"): try appendUnicodeEscape(&out)
                default: throw error("invalid escape")
                }
            default:
                if byte < 0x20 { throw error("control character in a string") }
                out.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    /// The offset of the quote ending a string that starts at `start`, and the OR of its bytes' top
    /// bits, when the string holds no backslash and no control character before it; nil otherwise (or
    /// when no quote follows). Sixteen bytes per step as one SIMD comparison (a signed payload is
    /// mostly one long base64 string); the last block byte by byte.
    func plainStringEnd(from start: Int) -> (end: Int, highBits: UInt8)? {
        guard let base = bytes.baseAddress else { return nil }
        let quote = SIMD16<UInt8>(repeating: 0x22)
        let backslash = SIMD16<UInt8>(repeating: 0x5C)
        let space = SIMD16<UInt8>(repeating: 0x20)
        var high = SIMD16<UInt8>(repeating: 0)
        var offset = start
        // Four blocks per step while no block holds anything special (one test for all four).
        while bytes.count - offset >= 64 {
            let raw = UnsafeRawPointer(base + offset)
            let a = raw.loadUnaligned(as: SIMD16<UInt8>.self)
            let b = raw.loadUnaligned(fromByteOffset: 16, as: SIMD16<UInt8>.self)
            let c = raw.loadUnaligned(fromByteOffset: 32, as: SIMD16<UInt8>.self)
            let d = raw.loadUnaligned(fromByteOffset: 48, as: SIMD16<UInt8>.self)
            let special =
                (a .== quote) .| (a .== backslash) .| (a .< space) .| (b .== quote) .| (b .== backslash)
                .| (b .< space) .| (c .== quote) .| (c .== backslash) .| (c .< space) .| (d .== quote)
                .| (d .== backslash) .| (d .< space)
            let found = unsafeBitCast(special, to: (UInt64, UInt64).self)
            if found.0 | found.1 != 0 { break }
            high |= a | b | c | d
            offset += 64
        }
        while bytes.count - offset >= 16 {
            let block = UnsafeRawPointer(base + offset).loadUnaligned(as: SIMD16<UInt8>.self)
            // `any(_:)` is not inlined; the mask's two halves as integers are.
            let found = unsafeBitCast(
                (block .== quote) .| (block .== backslash) .| (block .< space), to: (UInt64, UInt64).self)
            if found.0 | found.1 != 0 { break }
            high |= block
            offset += 16
        }
        let highs = unsafeBitCast(high, to: (UInt64, UInt64).self)
        var highBits: UInt8 = (highs.0 | highs.1) & 0x8080_8080_8080_8080 == 0 ? 0 : 0x80
        while offset < bytes.count {
            let byte = base[offset]
            if byte == 0x22 { return (offset, highBits) }
            if byte < 0x20 || byte == 0x5C { return nil }
            highBits |= byte & 0x80
            offset += 1
        }
        return nil
    }

    /// A string of ASCII bytes, copied with `memcpy` (`String(decoding:as:)` copies byte by byte).
    static func asciiString(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return "" }
        return String(unsafeUninitializedCapacity: bytes.count) { buffer in
            UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: source, byteCount: bytes.count)
            return bytes.count
        }
    }

    func validated(_ slice: UnsafeBufferPointer<UInt8>, start: Int) throws(JSONError) -> String {
        guard let text = String(validating: slice, as: UTF8.self) else {
            throw JSONError(.syntax, "invalid UTF-8 in a string", offset: start)
        }
        return text
    }

    mutating func hex4() throws(JSONError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case 48...57: digit = UInt32(byte - 48)
            case 97...102: digit = UInt32(byte - 87)
            case 65...70: digit = UInt32(byte - 55)
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    mutating func appendUnicodeEscape(_ out: inout [UInt8]) throws(JSONError) {
        var scalar = try hex4()
        if (0xD800...0xDBFF).contains(scalar) {
            guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                bytes[index + 1] == UInt8(ascii: "u")
            else { throw error("unpaired surrogate") }
            index += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(scalar) {
            throw error("unpaired surrogate")
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid code point") }
        out.append(contentsOf: String(Character(unicode)).utf8)
    }
}
