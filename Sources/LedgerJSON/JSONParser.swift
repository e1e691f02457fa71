/// Limits applied while parsing untrusted JSON.
public struct JSONLimits: Sendable, Hashable {
    /// Largest input accepted, in bytes.
    public var maxBytes: Int
    /// Deepest nesting of arrays and objects.
    public var maxDepth: Int

    /// Creates limits.
    public init(maxBytes: Int = 16 << 20, maxDepth: Int = 64) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
    }
}

extension JSONValue {
    /// Parses one JSON document (RFC 8259) from UTF-8 bytes; surrounding white space is allowed,
    /// anything else after the value is an error.
    public static func parse(_ bytes: [UInt8], limits: JSONLimits = JSONLimits()) throws(JSONError)
        -> JSONValue
    {
        guard bytes.count <= limits.maxBytes else {
            throw JSONError(
                .limit, "JSON document of \(bytes.count) bytes exceeds the limit of \(limits.maxBytes)")
        }
        return try bytes.withUnsafeBufferPointer { buffer throws(JSONError) in
            var parser = JSONParser(buffer, maxDepth: limits.maxDepth)
            return try parser.parseDocument()
        }
    }

    /// Parses one JSON document from a string.
    public static func parse(_ text: String, limits: JSONLimits = JSONLimits()) throws(JSONError)
        -> JSONValue
    {
        try parse(Array(text.utf8), limits: limits)
    }
}

struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var index = 0
    var depth = 0
    /// Whether the last string parsed was plain ASCII (false when not known).
    var lastStringWasASCII = false

    init(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw error("unexpected content after the JSON value") }
        return value
    }

    func error(_ message: String) -> JSONError {
        JSONError(.syntax, message, offset: index)
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of input") }
        let pointer = word.utf8Start
        for i in 0..<count where bytes[index + i] != pointer[i] {
            throw error("invalid literal")
        }
        index += count
    }

    mutating func enter() throws(JSONError) {
        depth += 1
        guard depth <= maxDepth else {
            throw JSONError(.limit, "JSON nested deeper than \(maxDepth)", offset: index)
        }
    }

    mutating func parseObject() throws(JSONError) -> JSONValue {
        try enter()
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        var namesAreASCII = true
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(JSONObject(members, namesAreASCII: true))
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a member name")
            }
            let key = try parseString()
            namesAreASCII = namesAreASCII && lastStringWasASCII
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("expected ':'")
            }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            members.append((key: key, value: value))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
            index += 1
            depth -= 1
            return .object(JSONObject(members, namesAreASCII: namesAreASCII))
        }
    }

    mutating func parseArray() throws(JSONError) -> JSONValue {
        try enter()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
            index += 1
            depth -= 1
            return .array(elements)
        }
    }

    mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        var integral = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            integral = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if integral, let value = integerValue(start..<index) { return .integer(value) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error("number out of range") }
        return .double(value)
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

    /// The value of an integer literal already checked by `parseNumber` (`-`? digits), without making
    /// a string; nil when it does not fit `Int64`.
    func integerValue(_ range: Range<Int>) -> Int64? {
        var offset = range.lowerBound
        let negative = bytes[offset] == UInt8(ascii: "-")
        if negative { offset += 1 }
        var magnitude: UInt64 = 0
        while offset < range.upperBound {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[offset] &- 48))
            guard !overflow1, !overflow2 else { return nil }
            magnitude = sum
            offset += 1
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    mutating func parseString() throws(JSONError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: the first quote found with memchr ends the string when nothing before it is a
        // backslash or a control character; an all-ASCII string needs no UTF-8 validation.
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

extension JSONValue {
    /// The byte range of the value when `bytes` is exactly one object whose single member is `name`
    /// and whose value is a string of plain ASCII without escapes (white space allowed between
    /// tokens): then `parse(bytes)[name]` is that string, found without building it. Nil for any
    /// other document, valid or not: parse it then. `name` must be plain ASCII.
    public static func soleStringMember(_ name: String, in bytes: [UInt8]) -> Range<Int>? {
        bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(buffer, maxDepth: 1)
            return parser.soleStringMember(Array(name.utf8))
        }
    }
}

extension JSONParser {
    /// See `JSONValue.soleStringMember(_:in:)`.
    mutating func soleStringMember(_ name: [UInt8]) -> Range<Int>? {
        func expect(_ character: UInt8) -> Bool {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == character else { return false }
            index += 1
            return true
        }
        /// The range of a plain ASCII string whose opening quote was just read.
        func plainString() -> Range<Int>? {
            guard let (end, highBits) = plainStringEnd(from: index), highBits == 0 else { return nil }
            defer { index = end + 1 }
            return index..<end
        }
        guard expect(UInt8(ascii: "{")), expect(UInt8(ascii: "\"")), let key = plainString(),
            bytes[key].elementsEqual(name), expect(UInt8(ascii: ":")), expect(UInt8(ascii: "\"")),
            let value = plainString(), expect(UInt8(ascii: "}"))
        else { return nil }
        skipWhitespace()
        return index == bytes.count ? value : nil
    }
}
