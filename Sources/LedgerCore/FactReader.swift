/// Where a string's UTF-8 bytes are in the buffer a ``FactReader`` reads.
struct ByteRange {
    let start: Int
    let count: Int
}

/// Reads a record's encoding for ``FoldRecords``: the primitives through a ``BinaryReader`` and its checks,
/// strings as byte ranges. A literal is checked as ``BinaryReader/readString()`` checks it (length, bounds,
/// UTF-8) and numbered for back-references, but becomes a `String` only when the fold reads it.
struct FactReader: ~Copyable {
    /// The primitives: bytes, varints, instants, with their bounds checks.
    var primitives: ByteCursor
    private var literals: InlineArray<32, ByteRange>
    private var literalCount = 0

    /// A reader over `buffer`, which must stay valid while it is used.
    init(_ buffer: UnsafeRawBufferPointer) {
        primitives = ByteCursor(buffer)
        literals = InlineArray(repeating: ByteRange(start: 0, count: 0))
    }

    /// Reads a string (a literal or a back-reference) and returns where its bytes are.
    @inline(__always)
    mutating func readRange() throws(CoreError) -> ByteRange {
        switch try primitives.readStringItem(literals: literalCount) {
        case .reference(let index):
            return literals[index]
        case .literal(let tagAt, let start, let count):
            let range = ByteRange(start: start, count: count)
            let utf8 = utf8(range)
            guard BinaryReader.isASCII(utf8) || String(validating: utf8, as: UTF8.self) != nil else {
                throw ByteCursor.notUTF8(tagAt)
            }
            if literalCount < BinaryReader.maxStrings {
                literals[literalCount] = range
                literalCount += 1
            }
            return range
        }
    }

    /// Steps over a length-prefixed run of raw bytes of at most `maxLength` bytes, checked as
    /// ``BinaryReader/readBytes(maxLength:)`` checks it.
    mutating func skipBytes(maxLength: Int) throws(CoreError) {
        _ = try primitives.readRun(maxLength: maxLength)
    }

    /// The bytes of a range read before.
    func bytes(_ range: ByteRange) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: primitives.address(range.start), count: range.count)
    }

    private func utf8(_ range: ByteRange) -> UnsafeBufferPointer<UInt8> {
        primitives.utf8(at: range.start, count: range.count)
    }

    /// The text of a range read before (checked then), once the payload is in a batch's texts from `base` on.
    func text(_ range: ByteRange, at base: Int) -> FoldText {
        FoldText(start: base + range.start, count: range.count)
    }
}
