/// The primitives ``BinaryWriter`` writes (bytes, varints, zig-zag integers, instants), read from a borrowed
/// buffer with every bound checked: hostile bytes make it throw a ``CoreError``, never trap or read out of bounds.
/// ``BinaryReader`` adds strings with their back-references; ``FactReader`` reads them as byte ranges.
struct ByteCursor {
    private let buffer: UnsafeRawBufferPointer
    /// The position of the next byte to read.
    private(set) var offset: Int
    private var instantBase: Int64?

    /// A cursor over `buffer`, which must stay valid while it is used.
    init(_ buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
        self.offset = 0
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { offset == buffer.count }

    /// The number of bytes not read yet.
    var remaining: Int { buffer.count - offset }

    /// Reads one raw byte.
    @inline(__always)
    mutating func readByte() throws(CoreError) -> UInt8 {
        guard offset < buffer.count else { throw Self.truncated(offset) }
        let byte = buffer[offset]
        offset += 1
        return byte
    }

    /// Reads an unsigned LEB128 varint of at most 10 bytes whose value fits 64 bits.
    @inline(__always)
    mutating func readVarint() throws(CoreError) -> UInt64 {
        if offset < buffer.count {
            let first = buffer[offset]
            if first < 0x80 {
                offset += 1
                return UInt64(first)
            }
        }
        return try readLongVarint()
    }

    private mutating func readLongVarint() throws(CoreError) -> UInt64 {
        if buffer.count - offset >= 10, let base = buffer.baseAddress {
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
        let end = buffer.count
        while true {
            guard index < end else { throw Self.truncated(offset) }
            let byte = buffer[index]
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

    /// Steps over `count` bytes the caller has checked are there.
    @inline(__always)
    mutating func advance(by count: Int) {
        offset += count
    }

    /// The address of the byte at `position` (the buffer is not empty once a byte was read).
    @inline(__always)
    func address(_ position: Int) -> UnsafeRawPointer {
        buffer.baseAddress.unsafelyUnwrapped + position
    }

    /// `count` bytes from `position`, as UTF-8 code units.
    @inline(__always)
    func utf8(at position: Int, count: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: address(position).assumingMemoryBound(to: UInt8.self), count: count)
    }

    static func truncated(_ at: Int) -> CoreError {
        CoreError(
            .truncated,
            "the record ends inside the value starting at byte \(at); it was cut short (a torn write or a bad copy)")
    }
}
