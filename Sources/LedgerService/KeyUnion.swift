import LedgerLog

/// Union-find over the nodes of subject keys, with path halving: what ``ComponentMap`` numbers components from.
protocol NodeUnion {
    /// How many distinct keys it holds (their nodes are `0..<count`).
    var count: Int { get }
    /// The representative of a node's set.
    mutating func root(_ id: Int32) -> Int32
}

/// Union-find over subject keys of any kind, numbered in a `Dictionary`: for string keys.
struct KeyUnion<Key: Hashable>: NodeUnion {
    private var ids: [Key: Int32] = [:]
    private var parent: [Int32] = []

    var count: Int { parent.count }

    /// An empty union: no keys yet.
    init() {}

    /// The node of a key, added on first sight.
    mutating func id(of key: Key) -> Int32 {
        if let id = ids[key] { return id }
        let id = Int32(parent.count)
        ids[key] = id
        parent.append(id)
        return id
    }

    mutating func root(_ id: Int32) -> Int32 {
        var node = Int(id)
        while Int(parent[node]) != node {
            parent[node] = parent[Int(parent[node])]
            node = Int(parent[node])
        }
        return Int32(node)
    }

    /// Joins the sets of two nodes.
    mutating func union(_ a: Int32, _ b: Int32) {
        let rootA = root(a)
        let rootB = root(b)
        if rootA != rootB { parent[Int(max(rootA, rootB))] = min(rootA, rootB) }
    }
}

/// Union-find over 64-bit key hashes, numbered in an open-addressed table with linear probing: the hashes are
/// well mixed already (``LogRecordView/forEachSubjectKeyQuickHash(_:)``), so their low bits pick the slot with no
/// hashing again, and a probe touches one cache line (key and node side by side). Hash 0 shares a slot with hash
/// 1, which at worst joins two components, as a 64-bit collision does. A class over memory of its own, so the
/// hot loop pays no copy-on-write checks.
final class HashUnion: ParentForest, NodeUnion {
    /// Per slot, the hash (0: empty) and its node.
    private var slots: UnsafeMutablePointer<UInt64>
    private var mask: Int
    private(set) var parent: UnsafeMutablePointer<Int32>
    private var capacity: Int
    private(set) var count = 0

    /// A union sized for about `expected` keys.
    init(expected: Int = 1024) {
        var size = 1024
        while size * 3 < expected * 4 { size <<= 1 }
        mask = size - 1
        slots = .allocate(capacity: 2 * size)
        slots.initialize(repeating: 0, count: 2 * size)
        capacity = size
        parent = .allocate(capacity: size)
    }

    deinit {
        slots.deallocate()
        parent.deallocate()
    }

    /// The node of a hash, added on first sight.
    @inline(__always)
    func id(of hash: UInt64) -> Int32 {
        let key = hash == 0 ? 1 : hash
        var index = Int(truncatingIfNeeded: key) & mask
        while true {
            let slot = slots[2 &* index]
            if slot == key { return Int32(truncatingIfNeeded: slots[2 &* index &+ 1]) }
            if slot == 0 { break }
            index = (index &+ 1) & mask
        }
        if (count &+ 1) &* 4 > (mask &+ 1) &* 3 {
            grow()
            return id(of: hash)
        }
        let id = Int32(truncatingIfNeeded: count)
        slots[2 &* index] = key
        slots[2 &* index &+ 1] = UInt64(truncatingIfNeeded: id)
        parent[count] = id
        count &+= 1
        return id
    }

    /// Doubles the table (and the room for nodes, which never outnumber its slots).
    private func grow() {
        let oldSlots = slots
        let oldSize = mask + 1
        let size = 2 * oldSize
        mask = size - 1
        slots = .allocate(capacity: 2 * size)
        slots.initialize(repeating: 0, count: 2 * size)
        for old in 0..<oldSize where oldSlots[2 * old] != 0 {
            var index = Int(truncatingIfNeeded: oldSlots[2 * old]) & mask
            while slots[2 &* index] != 0 { index = (index &+ 1) & mask }
            slots[2 &* index] = oldSlots[2 * old]
            slots[2 &* index &+ 1] = oldSlots[2 * old + 1]
        }
        oldSlots.deallocate()
        let oldParent = parent
        parent = .allocate(capacity: size)
        parent.update(from: oldParent, count: count)
        oldParent.deallocate()
        capacity = size
    }
}
