/// The primitives ``BinaryWriter`` writes (bytes, varints, zig-zag integers, instants), read from a borrowed
/// buffer with every bound checked: hostile bytes make it throw a ``CoreError``, never trap or read out of bounds.
/// ``BinaryReader`` adds strings with their back-references; ``FactReader`` reads them as byte ranges.
struct ByteCursor {
    // The buffer's start and length, kept apart: a buffer pointer works its length out from two optional
    // addresses at every use, and every read here checks a bound. `base` is nil only for an empty buffer, where
    // no bound check lets a load through.
    private let base: UnsafeRawPointer?
    private let count: Int
    /// The position of the next byte to read.
    private(set) var offset: Int
    private var instantBase: Int64?

    /// A cursor over `buffer`, which must stay valid while it is used.
    init(_ buffer: UnsafeRawBufferPointer) {
        self.base = buffer.baseAddress
        self.count = buffer.count
        self.offset = 0
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { offset == count }

    /// The number of bytes not read yet.
    var remaining: Int { count - offset }

    /// The byte at `position`, which the caller has checked is below ``count``.
    @inline(__always)
    private func byte(at position: Int) -> UInt8 {
        base.unsafelyUnwrapped.load(fromByteOffset: position, as: UInt8.self)
    }

    /// Reads one raw byte.
    @inline(__always)
    mutating func readByte() throws(CoreError) -> UInt8 {
        guard offset < count else { throw Self.truncated(offset) }
        let byte = byte(at: offset)
        offset &+= 1  // below `count`: cannot overflow
        return byte
    }

    /// Reads an unsigned LEB128 varint of at most 10 bytes whose value fits 64 bits.
    @inline(__always)
    mutating func readVarint() throws(CoreError) -> UInt64 {
        if offset < count {
            let first = byte(at: offset)
            if first < 0x80 {
                offset &+= 1
                return UInt64(first)
            }
        }
        if let value = readWordVarint() { return value }
        return try readLongVarint()
    }

    /// A varint of two to eight bytes with eight bytes left, read as one little-endian word (56 bits: no overflow
    /// to check); nil for anything else. Its last byte is the first without the continuation bit. Out of line and
    /// unable to throw, so that its call costs next to nothing.
    @inline(never)
    private mutating func readWordVarint() -> UInt64? {
        // `offset` is at most `count` and eight bytes are left (so the buffer has an address): no overflow and no
        // nil to check below.
        guard count &- offset >= 8 else { return nil }
        let word = UInt64(
            littleEndian: base.unsafelyUnwrapped.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        let ends = ~word & 0x8080_8080_8080_8080
        guard ends != 0 else { return nil }
        let bits = ends.trailingZeroBitCount &+ 1  // 8 × the varint's length: 8 to 64
        var value = (word & (UInt64.max &>> UInt64(64 &- bits))) & 0x7F7F_7F7F_7F7F_7F7F
        // Pack the seven-bit groups: pairs into 14 bits, quads into 28, then all 56.
        value = (value & 0x007F_007F_007F_007F) | ((value & 0x7F00_7F00_7F00_7F00) >> 1)
        value = (value & 0x0000_3FFF_0000_3FFF) | ((value & 0x3FFF_0000_3FFF_0000) >> 2)
        value = (value & 0x0000_0000_0FFF_FFFF) | ((value & 0x0FFF_FFFF_0000_0000) >> 4)
        offset &+= bits >> 3
        return value
    }

    /// ``readVarint()`` for a varint of nine or ten bytes, or one within the last eight bytes of the buffer, byte
    /// by byte, with every check.
    private mutating func readLongVarint() throws(CoreError) -> UInt64 {
        if count - offset >= 10, let base {
            // Ten bytes are there: no bound to check (a varint ends or overflows within them).
            var result: UInt64 = 0
            var shift: UInt64 = 0
            var index = offset
            while true {
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                index += 1
                if shift == 63, byte > 1 {
                    throw CoreError(.malformed, "varint at byte \(offset) overflows 64 bits; the record is damaged")
                }
                result |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 {
                    offset = index
                    return result
                }
                shift += 7
            }
        }
        var result: UInt64 = 0
        var shift: UInt64 = 0
        var index = offset
        let end = count
        while true {
            guard index < end else { throw Self.truncated(offset) }
            let byte = byte(at: index)
            index += 1
            if shift == 63, byte > 1 {
                throw CoreError(.malformed, "varint at byte \(offset) overflows 64 bits; the record is damaged")
            }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 {
                offset = index
                return result
            }
            shift += 7
        }
    }

    /// Reads a zig-zag encoded signed integer.
    @inline(__always)
    mutating func readSigned() throws(CoreError) -> Int64 {
        let raw = try readVarint()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// Reads a signed value that must fit 32 bits.
    @inline(__always)
    mutating func readInt32() throws(CoreError) -> Int32 {
        let value = try readSigned()
        guard let narrow = Int32(exactly: value) else {
            throw CoreError(.malformed, "value \(value) before byte \(offset) does not fit 32 bits")
        }
        return narrow
    }

    /// Reads an instant (absolute for the first one, relative to it afterwards).
    @inline(__always)
    mutating func readInstant() throws(CoreError) -> Instant {
        let value = try readSigned()
        if let base = instantBase { return Instant(milliseconds: base &+ value) }
        instantBase = value
        return Instant(milliseconds: value)
    }

    /// Steps over `count` bytes the caller has checked are there (so the sum stays within the buffer's length).
    @inline(__always)
    mutating func advance(by count: Int) {
        offset &+= count
    }

    /// The address of the byte at `position` (the buffer is not empty once a byte was read).
    @inline(__always)
    func address(_ position: Int) -> UnsafeRawPointer {
        base.unsafelyUnwrapped + position
    }

    /// `count` bytes from `position`, as UTF-8 code units.
    @inline(__always)
    func utf8(at position: Int, count: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: address(position).assumingMemoryBound(to: UInt8.self), count: count)
    }

    /// A string as the encoding holds it: a back-reference to an earlier literal, or a literal's bytes.
    enum StringItem {
        /// The `index`-th literal of the record.
        case reference(Int)
        /// A literal: where its bytes are (length and bounds checked; UTF-8 not yet) and where its tag starts.
        case literal(tagAt: Int, start: Int, count: Int)
    }

    /// Reads a string's tag, `literals` literals having come before it, and steps over a literal's bytes once
    /// its length (at most ``BinaryReader/maxStringLength``) and bounds are checked. The one reading of string tags
    /// behind ``BinaryReader/readString()`` and ``FactReader/readRange()``; each checks the literal's UTF-8.
    @inline(__always)
    mutating func readStringItem(literals: Int) throws(CoreError) -> StringItem {
        let start = offset
        let tag = try readVarint()
        if tag & 1 == 1 {
            guard tag >> 1 < UInt64(literals) else {
                throw CoreError(
                    .malformed,
                    "string at byte \(start) refers to string #\(tag >> 1) but only \(literals) precede it; "
                        + "the record is damaged")
            }
            return .reference(Int(tag >> 1))
        }
        let length = tag >> 1
        guard length <= UInt64(BinaryReader.maxStringLength) else {
            throw CoreError(
                .limitExceeded,
                "string at byte \(start) claims \(length) bytes, over the \(BinaryReader.maxStringLength) limit")
        }
        guard Int(length) <= remaining else { throw Self.truncated(start) }
        let literal = StringItem.literal(tagAt: start, start: offset, count: Int(length))
        advance(by: Int(length))
        return literal
    }

    /// Reads a length-prefixed run of raw bytes of at most `maxLength` bytes and steps over it; returns where
    /// its bytes start and how many there are.
    @inline(__always)
    mutating func readRun(maxLength: Int) throws(CoreError) -> (start: Int, count: Int) {
        let start = offset
        let length = try readVarint()
        guard length <= UInt64(maxLength) else {
            throw CoreError(.limitExceeded, "byte run at byte \(start) claims \(length) bytes, over \(maxLength)")
        }
        guard Int(length) <= remaining else { throw Self.truncated(start) }
        let run = (start: offset, count: Int(length))
        advance(by: Int(length))
        return run
    }

    /// The error for a literal string, tagged at `tagAt`, whose bytes are not UTF-8.
    static func notUTF8(_ tagAt: Int) -> CoreError {
        CoreError(.malformed, "string at byte \(tagAt) is not valid UTF-8; the record is damaged")
    }

    static func truncated(_ at: Int) -> CoreError {
        CoreError(
            .truncated,
            "the record ends inside the value starting at byte \(at); it was cut short (a torn write or a bad copy)")
    }
}
