/// The idempotency index: key → seq, kept compact as a 64-bit stable hash → seq.
///
/// A hash hit is confirmed by reading the record's key. The rare distinct keys that share a hash live in
/// `overflow`, by full key.
struct KeyIndex: Sendable {
    var table = HashTable64()
    var overflow: [String: UInt64] = [:]

    var count: Int { table.count + overflow.count }

    /// The seq of `key`, confirming a hash hit with `keyOf(seq)`.
    func seq(for key: String, hash: UInt64, keyOf: (UInt64) -> String?) -> UInt64? {
        if !overflow.isEmpty, let seq = overflow[key] { return seq }
        guard let seq = table.find(hash) else { return nil }
        return keyOf(seq) == key ? seq : nil
    }

    /// Records a key known to be new (no record has it).
    mutating func insert(_ key: String, hash: UInt64, seq: UInt64) {
        let taken = table.update(hash) { value in if value == 0 { value = seq } }
        if taken { overflow[key] = seq }
    }

    /// Records a key while rebuilding from the log, where every key is distinct: a taken hash is a collision.
    mutating func insertScanned(_ keyBytes: UnsafeRawBufferPointer, seq: UInt64) {
        let hash = StableHash.hash(keyBytes)
        let taken = table.update(hash) { value in if value == 0 { value = seq } }
        if taken { overflow[String(decoding: keyBytes, as: UTF8.self)] = seq }
    }

    /// The persisted form: count, (hash, seq) pairs, overflow count, (key length, key, seq).
    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16 + table.count * 16)
        bytes.appendLE(UInt64(table.count))
        table.forEach { hash, seq in
            bytes.appendLE(hash)
            bytes.appendLE(seq)
        }
        bytes.appendLE(UInt64(overflow.count))
        for (key, seq) in overflow {
            let utf8 = Array(key.utf8)
            bytes.appendLE(UInt16(utf8.count))
            bytes.append(contentsOf: utf8)
            bytes.appendLE(seq)
        }
        return bytes
    }

    /// Reads the persisted form; nil when malformed.
    static func decode(_ bytes: [UInt8]) -> KeyIndex? {
        bytes.withUnsafeBytes { raw -> KeyIndex? in
            var reader = ByteReader(raw)
            guard let count = reader.u64(), count <= UInt64(raw.count / 16) else { return nil }
            var index = KeyIndex(table: HashTable64(capacity: Int(count)))
            for _ in 0..<count {
                guard let hash = reader.u64(), let seq = reader.u64() else { return nil }
                index.table.set(hash, seq)
            }
            guard let overflowCount = reader.u64(), overflowCount <= UInt64(raw.count) else { return nil }
            for _ in 0..<overflowCount {
                guard let length = reader.u16(), let key = reader.bytes(Int(length)), let seq = reader.u64() else {
                    return nil
                }
                index.overflow[String(decoding: key, as: UTF8.self)] = seq
            }
            return reader.atEnd ? index : nil
        }
    }
}
