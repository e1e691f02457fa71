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
