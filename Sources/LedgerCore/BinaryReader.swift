/// Reads the primitives ``BinaryWriter`` writes, from a borrowed buffer, with every length and bound
/// checked: hostile bytes make it throw a ``CoreError``, never trap or read out of bounds.
///
/// The reader borrows the buffer: it must not outlive it. It keeps the literal strings it has read in an
/// inline table for the back-references, so decoding a record allocates nothing but the values it returns.
public struct BinaryReader: ~Copyable {
    /// The longest string accepted, in UTF-8 bytes.
    public static let maxStringLength = 1 << 16
    /// How many literal strings a reader keeps for back-references: the first 32 of a record (a writer
    /// never refers to a later one).
    public static let maxStrings = 32

    /// The primitives: bytes, varints, instants.
    var cursor: ByteCursor
    private var strings: InlineArray<32, String?>
    private var stringCount = 0

    /// Creates a reader over `buffer`, which must stay valid while the reader is used.
    public init(_ buffer: UnsafeRawBufferPointer) {
        self.cursor = ByteCursor(buffer)
        self.strings = InlineArray(repeating: nil)
    }

    /// The position of the next byte to read.
    public var offset: Int { cursor.offset }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { cursor.isAtEnd }

    /// The number of bytes not read yet.
    public var remaining: Int { cursor.remaining }

    /// Reads one raw byte.
    @inline(__always)
    public mutating func readByte() throws(CoreError) -> UInt8 { try cursor.readByte() }

    /// Reads an unsigned LEB128 varint of at most 10 bytes whose value fits 64 bits.
    @inline(__always)
    public mutating func readVarint() throws(CoreError) -> UInt64 { try cursor.readVarint() }

    /// Reads a zig-zag encoded signed integer.
    @inline(__always)
    public mutating func readSigned() throws(CoreError) -> Int64 { try cursor.readSigned() }

    /// Reads an instant (absolute for the first one, relative to it afterwards).
    @inline(__always)
    public mutating func readInstant() throws(CoreError) -> Instant { try cursor.readInstant() }

    /// Reads a string: a literal (validated UTF-8, at most ``maxStringLength`` bytes) or a back-reference.
    public mutating func readString() throws(CoreError) -> String {
        switch try cursor.readStringItem(literals: stringCount) {
        case .reference(let index):
            return strings[index].unsafelyUnwrapped
        case .literal(let tagAt, let start, let count):
            guard let string = Self.validatedString(cursor.utf8(at: start, count: count)) else {
                throw ByteCursor.notUTF8(tagAt)
            }
            if stringCount < Self.maxStrings {
                strings[stringCount] = string
                stringCount += 1
            }
            return string
        }
    }

    /// Reads a length-prefixed run of raw bytes of at most `maxLength` bytes.
    public mutating func readBytes(maxLength: Int) throws(CoreError) -> [UInt8] {
        let run = try cursor.readRun(maxLength: maxLength)
        return Array(UnsafeRawBufferPointer(start: cursor.address(run.start), count: run.count))
    }

    /// ASCII (nearly every identifier) takes the fast path; anything else is validated strictly. Common long
    /// values over 15 bytes (product identifiers, transaction types…) come from ``InternedStrings`` without
    /// allocating.
    @inline(__always)
    static func validatedString(_ utf8: UnsafeBufferPointer<UInt8>) -> String? {
        guard isASCII(utf8) else { return String(validating: utf8, as: UTF8.self) }
        // Up to 15 bytes a string is stored inline and costs no allocation: nothing to share.
        if utf8.count > 15, let interned = InternedStrings.lookup(utf8) { return interned }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// Whether every byte is below 0x80, eight bytes at a time.
    @inline(__always)
    static func isASCII(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = utf8.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        let count = utf8.count
        var combined: UInt64 = 0
        if count >= 8 {
            var index = 0
            while index + 8 <= count {
                combined |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                index += 8
            }
            // The last word, overlapping the ones read: no byte loop for the tail.
            combined |= raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        } else {
            for index in 0..<count { combined |= UInt64(base[index]) }
        }
        return combined & 0x8080_8080_8080_8080 == 0
    }
}
