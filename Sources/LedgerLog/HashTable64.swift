/// An open-addressing hash table from 64-bit keys (already well-mixed hashes) to 64-bit values, with linear
/// probing over interleaved (key, value) slots, so a lookup touches one cache line. Far cheaper than
/// `Dictionary` here: no re-hashing, no per-entry allocation.
///
/// Key 0 marks an empty slot, so a key of 0 is stored as 1 (callers confirm hits anyway).
struct HashTable64: Sendable {
    /// Slot i: key at 2i, value at 2i + 1.
    private var slots: [UInt64]
    private(set) var count = 0
    private var mask: Int

    init(capacity: Int = 16) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [UInt64](repeating: 0, count: 2 * size)
        mask = size - 1
    }

    @inline(__always)
    private static func normalize(_ key: UInt64) -> UInt64 { key == 0 ? 1 : key }

    /// The value for `key`, or nil.
    @inline(__always)
    func find(_ key: UInt64) -> UInt64? {
        let key = Self.normalize(key)
        let mask = self.mask
        return slots.withUnsafeBufferPointer { slots -> UInt64? in
            var index = Int(truncatingIfNeeded: key) & mask
            while true {
                let slot = slots[2 &* index]
                if slot == key { return slots[2 &* index &+ 1] }
                if slot == 0 { return nil }
                index = (index &+ 1) & mask
            }
        }
    }

    /// Finds or creates the slot for `key` and lets `body` read and change its value (0 for a new key).
    /// - Returns: whether the key was already there.
    @discardableResult
    @inline(__always)
    mutating func update(_ key: UInt64, _ body: (inout UInt64) -> Void) -> Bool {
        if (count &+ 1) &* 10 > (mask &+ 1) &* 7 { grow() }
        let key = Self.normalize(key)
        let mask = self.mask
        let existed = slots.withUnsafeMutableBufferPointer { slots -> Bool in
            var index = Int(truncatingIfNeeded: key) & mask
            while true {
                let slot = slots[2 &* index]
                if slot == key {
                    body(&slots[2 &* index &+ 1])
                    return true
                }
                if slot == 0 {
                    slots[2 &* index] = key
                    body(&slots[2 &* index &+ 1])
                    return false
                }
                index = (index &+ 1) & mask
            }
        }
        if !existed { count &+= 1 }
        return existed
    }

    /// Sets the value for `key`.
    @inline(__always)
    mutating func set(_ key: UInt64, _ value: UInt64) {
        update(key) { $0 = value }
    }

    /// Calls `body` with every (key, value).
    func forEach(_ body: (UInt64, UInt64) -> Void) {
        for index in 0...mask where slots[2 * index] != 0 { body(slots[2 * index], slots[2 * index + 1]) }
    }

    private mutating func grow() {
        var bigger = HashTable64(capacity: mask + 1)
        forEach { key, value in bigger.set(key, value) }
        self = bigger
    }
}
