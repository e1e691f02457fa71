/// DER as far as the ledger writes and reads it by hand (ECDSA signatures; the test kit's keys and certificates):
/// tag-length-value elements with definite, minimal lengths. Everything else about X.509 is libcrypto's.
public enum DER {
    /// The tag of a SEQUENCE.
    public static let sequenceTag: UInt8 = 0x30
    /// The tag of an INTEGER.
    public static let integerTag: UInt8 = 0x02

    /// A tag-length-value element with a definite, minimal length.
    public static func tlv(_ tag: UInt8, _ content: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = [tag]
        out.reserveCapacity(content.count + 6)
        if content.count < 0x80 {
            out.append(UInt8(content.count))
        } else {
            let significant = (Int.bitWidth - content.count.leadingZeroBitCount + 7) / 8
            out.append(0x80 | UInt8(significant))
            for index in stride(from: significant - 1, through: 0, by: -1) {
                out.append(UInt8(truncatingIfNeeded: content.count >> (index * 8)))
            }
        }
        out += content
        return out
    }

    /// A SEQUENCE of already encoded elements.
    public static func sequence(_ content: [UInt8]) -> [UInt8] { tlv(sequenceTag, content) }

    /// One element: its tag, where it starts, where its content starts, where it ends.
    public struct Element: Sendable, Equatable {
        /// The tag byte.
        public var tag: UInt8
        /// The offset of the tag.
        public var start: Int
        /// The offset of the first content byte.
        public var contentStart: Int
        /// The offset just past the last content byte.
        public var end: Int

        /// The content's offsets.
        public var content: Range<Int> { contentStart..<end }
    }

    /// The element starting at `offset`, or nil when the bytes there are not DER: too short, an indefinite or
    /// non-minimal length, a length of more than four bytes, or content running past the end.
    public static func element(_ bytes: [UInt8], at offset: Int) -> Element? {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        var index = offset + 1
        var length = Int(bytes[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count >= 1, count <= 4, index + count <= bytes.count, bytes[index] != 0 else { return nil }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(bytes[index])
                index += 1
            }
            // The long form only where the short one cannot say the length.
            guard length >= 0x80 else { return nil }
        }
        guard length <= bytes.count - index else { return nil }
        return Element(tag: bytes[offset], start: offset, contentStart: index, end: index + length)
    }
}
