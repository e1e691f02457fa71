#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Bytes as a dictionary key, hashed in one pass over the raw buffer and compared with `memcmp`
/// (an `[UInt8]` key hashes element by element, several times slower for certificate-sized keys).
struct ByteKey: Hashable, Sendable {
    /// The bytes; a lookup key may be a slice of a larger buffer (no copy), a stored key is `compacted`.
    let bytes: ArraySlice<UInt8>
    /// The bytes' hash, computed once when the key is made (outside any lock), so a cache lookup under its
    /// mutex only compares.
    private let digest: Int

    init<C: Collection<UInt8>>(_ bytes: C) {
        self.init(slice: ArraySlice(bytes))
    }

    /// A key over `slice` itself, without copying it.
    init(slice: ArraySlice<UInt8>) {
        self.bytes = slice
        self.digest = slice.withUnsafeBytes(Self.digest(of:))
    }

    /// A fast multiply-rotate digest over 8-byte words, four independent lanes. It need not resist
    /// crafted collisions: equality always compares every byte, the caches it serves are small and
    /// bounded, and the dictionary still mixes the digest with its own seeded hasher.
    static func digest(of bytes: UnsafeRawBufferPointer) -> Int {
        let prime: UInt64 = 0x9E37_79B9_7F4A_7C15
        var lanes: (UInt64, UInt64, UInt64, UInt64) = (1, 2, 3, UInt64(bytes.count))
        func mix(_ lane: UInt64, _ word: UInt64) -> UInt64 {
            let product = (lane ^ word) &* prime
            return product ^ (product >> 29)
        }
        var offset = 0
        while bytes.count - offset >= 32 {
            lanes.0 = mix(lanes.0, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            lanes.1 = mix(lanes.1, bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
            lanes.2 = mix(lanes.2, bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
            lanes.3 = mix(lanes.3, bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
            offset += 32
        }
        while bytes.count - offset >= 8 {
            lanes.0 = mix(lanes.0, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        var tail: UInt64 = 0
        while offset < bytes.count {
            tail = tail << 8 | UInt64(bytes[offset])
            offset += 1
        }
        let combined = mix(mix(mix(mix(lanes.0, lanes.1), lanes.2), lanes.3), tail)
        return Int(truncatingIfNeeded: combined)
    }

    private init(bytes: ArraySlice<UInt8>, digest: Int) {
        self.bytes = bytes
        self.digest = digest
    }

    /// The same key over its own copy of the bytes, so a cache does not keep the buffer a lookup key
    /// was sliced from.
    var compacted: ByteKey { ByteKey(bytes: ArraySlice(Array(bytes)), digest: digest) }

    func hash(into hasher: inout Hasher) {
        hasher.combine(digest)
    }

    static func == (lhs: ByteKey, rhs: ByteKey) -> Bool {
        guard lhs.digest == rhs.digest, lhs.bytes.count == rhs.bytes.count else { return false }
        return lhs.bytes.withUnsafeBytes { left in
            rhs.bytes.withUnsafeBytes { right in
                left.count == 0 || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
            }
        }
    }
}

/// A bounded first-in-first-out map, the shape of the verifier's caches. Not thread-safe by
/// itself: owners keep it in a `Mutex`.
struct BoundedCache<Value: Sendable>: Sendable {
    private let capacity: Int
    private var entries: [ByteKey: Value] = [:]
    private var order: [ByteKey] = []
    /// Values dropped to stay within the capacity.
    private(set) var evictions = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    var count: Int { entries.count }

    subscript(key: ByteKey) -> Value? { entries[key] }

    mutating func insert(_ value: Value, for key: ByteKey) {
        let key = key.compacted
        guard entries.updateValue(value, forKey: key) == nil else { return }
        order.append(key)
        while order.count > capacity {
            entries[order.removeFirst()] = nil
            evictions += 1
        }
    }
}
