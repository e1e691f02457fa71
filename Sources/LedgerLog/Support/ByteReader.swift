/// Bounds-checked little-endian reads from a buffer.
struct ByteReader {
    private let raw: UnsafeRawBufferPointer
    private(set) var position = 0

    init(_ raw: UnsafeRawBufferPointer) { self.raw = raw }

    var atEnd: Bool { position == raw.count }

    mutating func u16() -> UInt16? { fixed(UInt16.self) }
    mutating func u32() -> UInt32? { fixed(UInt32.self) }
    mutating func u64() -> UInt64? { fixed(UInt64.self) }

    mutating func bytes(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, position + count <= raw.count else { return nil }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: raw[position..<(position + count)])
    }

    /// Copies `count` little-endian values into an array (bulk).
    mutating func array<T: FixedWidthInteger>(_: T.Type, count: Int) -> [T]? {
        let size = MemoryLayout<T>.size
        guard count >= 0, position + count * size <= raw.count, let base = raw.baseAddress else { return nil }
        var out = [T](repeating: 0, count: count)
        out.withUnsafeMutableBytes {
            $0.copyMemory(from: UnsafeRawBufferPointer(start: base + position, count: count * size))
        }
        position += count * size
        return out  // little-endian hosts only (x86-64, arm64), as the ledger targets
    }

    private mutating func fixed<T: FixedWidthInteger>(_: T.Type) -> T? {
        let size = MemoryLayout<T>.size
        guard position + size <= raw.count, let base = raw.baseAddress else { return nil }
        defer { position += size }
        return T(littleEndian: base.loadUnaligned(fromByteOffset: position, as: T.self))
    }
}
