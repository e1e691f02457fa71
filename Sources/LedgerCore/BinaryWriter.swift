/// Appends the primitive encodings of the ledger's binary record format to a byte array.
///
/// - Unsigned integers: LEB128 varints (7 bits per byte, least significant group first, high bit = more).
/// - Signed integers: zig-zag (`(n << 1) ^ (n >> 63)`), then a varint.
/// - Strings: a varint tag `t`. An even tag is a literal: `t >> 1` bytes of UTF-8 follow. An odd tag is a
///   back-reference to the `t >> 1`-th literal string written earlier by the same writer, so a value that
///   repeats inside one record (an original transaction id, a product id) is stored once.
/// - Instants: the first instant written is a zig-zag varint of its milliseconds; every later one is the
///   zig-zag varint of its (wrapping) difference from that first instant, which keeps them short.
///
/// ``BinaryReader`` reads the same primitives back.
public struct BinaryWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]
    private var literalCount = 0
    private var instantBase: Int64?

    /// A literal string the writer has emitted, which later strings equal to it may reference.
    public struct StringHandle: Sendable {
        /// The literal's position among the writer's literals.
        let index: Int
        /// The literal's value.
        let value: String
    }

    /// Creates an empty writer with room for `capacity` bytes.
    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Appends one raw byte.
    @inline(__always)
    public mutating func writeByte(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Appends an unsigned LEB128 varint (1 to 10 bytes).
    @inline(__always)
    public mutating func writeVarint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: rest))
    }

    /// Appends a signed integer, zig-zag encoded as a varint.
    @inline(__always)
    public mutating func writeSigned(_ value: Int64) {
        writeVarint(UInt64(bitPattern: (value &<< 1) ^ (value >> 63)))
    }

    /// Appends an instant (see the type's documentation for the relative form).
    @inline(__always)
    public mutating func writeInstant(_ instant: Instant) {
        if let base = instantBase {
            writeSigned(instant.milliseconds &- base)
        } else {
            instantBase = instant.milliseconds
            writeSigned(instant.milliseconds)
        }
    }

    /// Appends a string: a back-reference when it equals `earlier`, else a literal.
    ///
    /// - Returns: the handle later strings may reuse (the earlier handle when a reference was written).
    @discardableResult
    public mutating func writeString(_ string: String, reusing earlier: StringHandle? = nil) -> StringHandle {
        if let earlier, earlier.index < BinaryReader.maxStrings, earlier.value == string {
            writeVarint(UInt64(earlier.index) << 1 | 1)
            return earlier
        }
        var copy = string
        copy.withUTF8 { utf8 in
            writeVarint(UInt64(utf8.count) << 1)
            bytes.append(contentsOf: utf8)
        }
        let handle = StringHandle(index: literalCount, value: string)
        literalCount += 1
        return handle
    }

    /// Appends a length-prefixed run of raw bytes.
    public mutating func writeBytes(_ raw: [UInt8]) {
        writeVarint(UInt64(raw.count))
        bytes.append(contentsOf: raw)
    }
}
