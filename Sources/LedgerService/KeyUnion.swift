/// Union-find over subject keys (or their hashes), with path halving. Each key gets a node on first sight, from
/// `Ids`: a `Dictionary` for strings, an open-addressed table for 64-bit hashes.
struct KeyUnion<Ids: NodeIds> {
    private var ids = Ids()
    private var parent: [Int32] = []

    /// How many distinct keys it holds.
    var count: Int { parent.count }

    /// The node of a key, added on first sight.
    @inline(__always)
    mutating func id(of key: Ids.Key) -> Int32 {
        let id = ids.id(of: key, next: Int32(parent.count))
        if Int(id) == parent.count { parent.append(id) }
        return id
    }

    /// The representative of a node's set.
    @inline(__always)
    mutating func root(_ id: Int32) -> Int32 {
        parent.withUnsafeMutableBufferPointer { parent in
            var node = Int(id)
            while Int(parent[node]) != node {
                parent[node] = parent[Int(parent[node])]
                node = Int(parent[node])
            }
            return Int32(node)
        }
    }

    /// Joins the sets of two nodes.
    @inline(__always)
    mutating func union(_ a: Int32, _ b: Int32) {
        let rootA = root(a)
        let rootB = root(b)
        if rootA != rootB { parent[Int(max(rootA, rootB))] = min(rootA, rootB) }
    }
}

/// Numbers keys in the order first seen.
protocol NodeIds {
    /// What is numbered.
    associatedtype Key
    /// No key yet.
    init()
    /// The number of `key`; a key not seen before gets `next` (the count so far).
    mutating func id(of key: Key, next: Int32) -> Int32
}

/// Keys numbered in a `Dictionary` (hashed with SipHash): for string keys.
struct DictionaryIds<Key: Hashable>: NodeIds {
    private var ids: [Key: Int32] = [:]

    mutating func id(of key: Key, next: Int32) -> Int32 {
        if let id = ids[key] { return id }
        ids[key] = next
        return next
    }
}

/// 64-bit hashes numbered in an open-addressed table with linear probing: the keys are stable hashes already
/// (``LogRecordView/forEachSubjectKeyHash(_:)``), so their low bits pick the slot with no hashing again. Key 0
/// shares a slot with key 1, which at worst joins two components (a 64-bit collision does the same).
struct HashIds: NodeIds {
    /// Per slot, the key (0: empty) and its number, side by side so a probe touches one cache line.
    private var slots = [UInt64](repeating: 0, count: 2 * 1024)
    private var used = 0
    private var mask = 1023

    mutating func id(of key: UInt64, next: Int32) -> Int32 {
        if (used + 1) * 4 > (mask + 1) * 3 { grow() }
        let key = key == 0 ? 1 : key
        let mask = mask
        let (id, added) = slots.withUnsafeMutableBufferPointer { slots -> (Int32, Bool) in
            var index = Int(truncatingIfNeeded: key) & mask
            while true {
                let slot = slots[2 &* index]
                if slot == key { return (Int32(truncatingIfNeeded: slots[2 &* index &+ 1]), false) }
                if slot == 0 {
                    slots[2 &* index] = key
                    slots[2 &* index &+ 1] = UInt64(next)
                    return (next, true)
                }
                index = (index &+ 1) & mask
            }
        }
        if added { used += 1 }
        return id
    }

    private mutating func grow() {
        let old = slots
        mask = 2 * mask + 1
        slots = [UInt64](repeating: 0, count: 2 * (mask + 1))
        slots.withUnsafeMutableBufferPointer { slots in
            for index in stride(from: 0, to: old.count, by: 2) where old[index] != 0 {
                var slot = Int(truncatingIfNeeded: old[index]) & mask
                while slots[2 &* slot] != 0 { slot = (slot &+ 1) & mask }
                slots[2 &* slot] = old[index]
                slots[2 &* slot &+ 1] = old[index + 1]
            }
        }
    }
}
