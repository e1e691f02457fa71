/// A union-find whose parents are in memory of its own, as a class, so a hot loop pays no copy-on-write or bounds
/// checks (an array's made the grouping loop three times slower): the finding, with path halving, and the joining
/// that the grouping of records into components shares (``NodeForest``, and the service's union over key hashes).
public protocol ParentForest: AnyObject {
    /// Each node's parent; a root is its own.
    var parent: UnsafeMutablePointer<Int32> { get }
}

extension ParentForest {
    /// The representative of a node's set.
    @inlinable @inline(__always)
    public func root(_ id: Int32) -> Int32 {
        var node = Int(id)
        while Int(parent[node]) != node {
            parent[node] = parent[Int(parent[node])]
            node = Int(parent[node])
        }
        return Int32(truncatingIfNeeded: node)
    }

    /// Joins the sets of two nodes (the smaller root becomes the root of both).
    @inlinable @inline(__always)
    public func union(_ a: Int32, _ b: Int32) {
        let rootA = root(a)
        let rootB = root(b)
        if rootA != rootB { parent[Int(max(rootA, rootB))] = min(rootA, rootB) }
    }
}

/// Union-find over nodes numbered as they are added, each alone at first, in room for a number fixed at the start.
final class NodeForest: ParentForest {
    let parent: UnsafeMutablePointer<Int32>
    private let capacity: Int
    private(set) var count = 0

    /// An empty union with room for `capacity` nodes.
    init(capacity: Int) {
        self.capacity = capacity
        parent = .allocate(capacity: max(capacity, 1))
    }

    deinit { parent.deallocate() }

    /// A new node, alone (there must be room for it).
    @inline(__always)
    func add() -> Int32 {
        precondition(count < capacity, "a node forest holds the nodes it was made for")
        let node = Int32(truncatingIfNeeded: count)
        parent[count] = node
        count &+= 1
        return node
    }
}
