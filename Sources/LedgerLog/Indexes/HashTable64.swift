import LedgerSystem

/// An open-addressing hash table from 64-bit keys (already well-mixed hashes) to 64-bit values, with linear
/// probing over interleaved (key, value) slots, so a lookup touches one cache line. Far cheaper than
/// `Dictionary` here: no re-hashing, no per-entry allocation. Large tables live in memory mapped with
/// transparent huge pages where the kernel allows, so random probes do not miss the TLB at every step.
///
/// Key 0 marks an empty slot, so a key of 0 is stored as 1 (callers confirm hits anyway). Copy-on-write.
struct HashTable64: @unchecked Sendable {
    // @unchecked Sendable: `storage` is never mutated while shared (copy-on-write below), so a copy sent to
    // another thread is never written through by this one.
    private var storage: Storage
    private(set) var count = 0
    private var mask: Int

    init(capacity: Int = 16) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        storage = Storage(slots: size)
        mask = size - 1
    }

    @inline(__always)
    private static func normalize(_ key: UInt64) -> UInt64 { key == 0 ? 1 : key }

    /// The value for `key`, or nil.
    @inline(__always)
    func find(_ key: UInt64) -> UInt64? {
        let key = Self.normalize(key)
        let slots = storage.words
        var index = Int(truncatingIfNeeded: key) & mask
        while true {
            let slot = slots[2 &* index]
            if slot == key { return slots[2 &* index &+ 1] }
            if slot == 0 { return nil }
            index = (index &+ 1) & mask
        }
    }

    /// Starts loading the cache line of `key`'s first slot (see ``prefetchCacheLines(_:)``), so that a lookup or
    /// an insert of it soon after finds the line in the cache.
    @inline(__always)
    func prefetch(_ key: UInt64) {
        let index = Int(truncatingIfNeeded: Self.normalize(key)) & mask
        prefetchCacheLine(storage.words + 2 &* index)
    }

    /// Finds or creates the slot for `key` and lets `body` read and change its value (0 for a new key).
    /// - Returns: whether the key was already there.
    @discardableResult
    @inline(__always)
    mutating func update(_ key: UInt64, _ body: (inout UInt64) -> Void) -> Bool {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy(slots: mask + 1) }
        if (count &+ 1) &* 10 > (mask &+ 1) &* 7 { grow() }
        let key = Self.normalize(key)
        let slots = storage.words
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
                count &+= 1
                return false
            }
            index = (index &+ 1) & mask
        }
    }

    /// Sets the value for `key`.
    @inline(__always)
    mutating func set(_ key: UInt64, _ value: UInt64) {
        update(key) { $0 = value }
    }

    /// Calls `body` with every (key, value).
    func forEach(_ body: (UInt64, UInt64) -> Void) {
        let slots = storage.words
        for index in 0...mask where slots[2 * index] != 0 { body(slots[2 * index], slots[2 * index + 1]) }
    }

    private mutating func grow() {
        rehash(capacity: mask + 1)
    }

    /// Makes room for `extra` more keys at once (one rehash instead of one per doubling while a big batch is
    /// added).
    mutating func reserve(_ extra: Int) {
        let needed = count + extra
        guard needed * 10 > (mask + 1) * 7 else { return }
        rehash(capacity: needed * 10 / 7 / 2 + 1)
    }

    /// Moves every entry into a new table sized for `capacity` keys.
    private mutating func rehash(capacity: Int) {
        var bigger = HashTable64(capacity: capacity)
        forEach { key, value in bigger.set(key, value) }
        self = bigger
    }

    /// Zeroed memory for the slots: huge pages (``HugePages``, every page faulted in at once: a table is written
    /// all over) for large tables, malloc otherwise.
    final class Storage {
        let words: UnsafeMutablePointer<UInt64>
        private let mapped: UnsafeMutableRawBufferPointer?

        init(slots: Int) {
            let bytes = slots * 16
            if bytes >= HugePages.size, let memory = HugePages.map(bytes, populate: true) {
                words = memory.baseAddress!.bindMemory(to: UInt64.self, capacity: slots * 2)
                mapped = memory
            } else {
                words = .allocate(capacity: slots * 2)
                words.initialize(repeating: 0, count: slots * 2)
                mapped = nil
            }
        }

        func copy(slots: Int) -> Storage {
            let other = Storage(slots: slots)
            other.words.update(from: words, count: slots * 2)
            return other
        }

        deinit {
            if let mapped {
                HugePages.unmap(mapped)
            } else {
                words.deallocate()
            }
        }
    }
}
