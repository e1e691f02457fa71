/// Appends the primitive encodings of the ledger's binary record format to a growable buffer.
///
/// - Unsigned integers: LEB128 varints (7 bits per byte, least significant group first, high bit = more).
/// - Signed integers: zig-zag (`(n << 1) ^ (n >> 63)`), then a varint.
/// - Strings: a varint tag `t`. An even tag is a literal: `t >> 1` bytes of UTF-8 follow. An odd tag is a
///   back-reference to the `t >> 1`-th literal string written earlier by the same writer, so a value that
///   repeats inside one record (an original transaction id, a product id) is stored once. Only the first
///   ``BinaryReader/maxStrings`` literals can be referred to.
/// - Instants: the first instant written is a zig-zag varint of its milliseconds; every later one is the
///   zig-zag varint of its (wrapping) difference from that first instant, which keeps them short.
///
/// The writer owns its memory (it is not copyable); ``bytes`` copies the result out. ``BinaryReader`` reads
/// the same primitives back.
public struct BinaryWriter: ~Copyable {
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// How many bytes have been written.
    public private(set) var count = 0
    /// The longest string literal written, in UTF-8 bytes: ``BinaryReader`` refuses one over
    /// ``BinaryReader/maxStringLength``.
    public private(set) var longestString = 0
    private var literalCount = 0
    private var instantBase: Int64?

    /// A literal string the writer has emitted, which later strings equal to it may reference.
    public struct StringHandle: Sendable {
        /// The literal's position among the writer's literals.
        let index: Int
        /// The literal's value.
        let value: String
    }

    /// Creates an empty writer with room for `capacity` bytes (it grows as needed).
    public init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        storage = .allocate(capacity: self.capacity)
    }

    deinit { storage.deallocate() }

    /// The bytes written so far.
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: storage, count: count)) }

    /// Calls `body` with the bytes written so far, without copying them.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: storage, count: count))
    }

    @inline(__always)
    private mutating func reserve(_ more: Int) {
        if count + more > capacity { grow(count + more) }
    }

    private mutating func grow(_ needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newStorage = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newStorage.update(from: storage, count: count)
        storage.deallocate()
        storage = newStorage
        capacity = newCapacity
    }

    /// Appends one raw byte.
    @inline(__always)
    public mutating func writeByte(_ byte: UInt8) {
        reserve(1)
        storage[count] = byte
        count += 1
    }

    /// Appends an unsigned LEB128 varint (1 to 10 bytes).
    @inline(__always)
    public mutating func writeVarint(_ value: UInt64) {
        reserve(10)
        var rest = value
        while rest >= 0x80 {
            storage[count] = UInt8(truncatingIfNeeded: rest) | 0x80
            count += 1
            rest >>= 7
        }
        storage[count] = UInt8(truncatingIfNeeded: rest)
        count += 1
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
        let written: Void? = string.utf8.withContiguousStorageIfAvailable { utf8 in
            writeRun(UnsafeRawBufferPointer(utf8), tagShift: 1)
        }
        if written == nil { writeRun(Array(string.utf8), tagShift: 1) }
        longestString = max(longestString, string.utf8.count)
        let handle = StringHandle(index: literalCount, value: string)
        literalCount += 1
        return handle
    }

    /// Appends a length-prefixed run of raw bytes.
    public mutating func writeBytes(_ raw: [UInt8]) {
        raw.withUnsafeBytes { writeRun($0, tagShift: 0) }
    }

    private mutating func writeRun(_ raw: [UInt8], tagShift: UInt64) {
        raw.withUnsafeBytes { writeRun($0, tagShift: tagShift) }
    }

    /// The length (shifted left by `tagShift`) as a varint, then the bytes.
    @inline(__always)
    private mutating func writeRun(_ raw: UnsafeRawBufferPointer, tagShift: UInt64) {
        writeVarint(UInt64(raw.count) << tagShift)
        reserve(raw.count)
        if let base = raw.baseAddress, raw.count > 0 {
            UnsafeMutableRawPointer(storage + count).copyMemory(from: base, byteCount: raw.count)
        }
        count += raw.count
    }
}
