/// Minimal DER writing and reading for the keys and certificates built here.
enum DER {
    /// A tag-length-value element with a definite, minimal length.
    static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [tag]
        if content.count < 0x80 {
            out.append(UInt8(content.count))
        } else {
            var length = content.count
            var bytes: [UInt8] = []
            while length > 0 {
                bytes.insert(UInt8(length & 0xFF), at: 0)
                length >>= 8
            }
            out.append(0x80 | UInt8(bytes.count))
            out += bytes
        }
        return out + content
    }

    /// A SEQUENCE of already encoded elements.
    static func sequence(_ content: [UInt8]) -> [UInt8] { tlv(0x30, content) }
}

extension DER {
    /// One DER element: tag, where it starts, where its content starts, where it ends.
    struct Element {
        var tag: UInt8
        var start: Int
        var contentStart: Int
        var end: Int
    }

    /// The element starting at `offset`, or nil when the bytes are not DER there.
    static func element(_ bytes: [UInt8], at offset: Int) -> Element? {
        guard offset + 2 <= bytes.count else { return nil }
        let tag = bytes[offset]
        var index = offset + 1
        var length = Int(bytes[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count >= 1, count <= 4, index + count <= bytes.count else { return nil }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(bytes[index])
                index += 1
            }
        }
        guard index + length <= bytes.count else { return nil }
        return Element(tag: tag, start: offset, contentStart: index, end: index + length)
    }
}
