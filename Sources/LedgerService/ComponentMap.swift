import LedgerLog

/// Which component each record of the log belongs to, found from the records' subject keys alone (no
/// decoding). Components are numbered in the order of their first records.
struct ComponentMap {
    /// Record `seq` → its component at `seq - 1`, or -1 for a record without subject keys (in no component).
    private(set) var componentOf: [Int32] = []
    /// Component → the seq of its last record.
    private(set) var lastSeq: [UInt64] = []
    /// Component → its number of records.
    private(set) var sizes: [Int] = []

    /// Numbers the components of records whose first subject key is `firstNodes[seq - 1]` in `union`
    /// (-1: no key).
    init<Key>(firstNodes: [Int32], union: inout KeyUnion<Key>) {
        var number = [Int32](repeating: -1, count: union.count)
        componentOf.reserveCapacity(firstNodes.count)
        for (index, node) in firstNodes.enumerated() {
            guard node >= 0 else {
                componentOf.append(-1)
                continue
            }
            let root = Int(union.root(node))
            if number[root] < 0 {
                number[root] = Int32(lastSeq.count)
                lastSeq.append(0)
                sizes.append(0)
            }
            let component = Int(number[root])
            componentOf.append(Int32(component))
            lastSeq[component] = UInt64(index + 1)
            sizes[component] += 1
        }
    }

    /// The seqs of every component, ascending, the components in the order of their first records.
    var components: [[UInt64]] {
        var result = sizes.map { size -> [UInt64] in
            var seqs: [UInt64] = []
            seqs.reserveCapacity(size)
            return seqs
        }
        for (index, component) in componentOf.enumerated() where component >= 0 {
            result[Int(component)].append(UInt64(index + 1))
        }
        return result
    }
}

/// Union-find over subject keys (or their hashes), with path halving.
struct KeyUnion<Key: Hashable> {
    private var ids: [Key: Int32] = [:]
    private var parent: [Int32] = []

    /// How many distinct keys it holds.
    var count: Int { parent.count }

    /// The node of a key, added on first sight.
    mutating func id(of key: Key) -> Int32 {
        if let id = ids[key] { return id }
        let id = Int32(parent.count)
        ids[key] = id
        parent.append(id)
        return id
    }

    /// The representative of a node's set.
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

extension Ledger {
    /// Groups the log's records into components. The file log's records are grouped by the stable hashes of
    /// their subject keys, read in place: two keys sharing a 64-bit hash (rare) only join two components, which
    /// changes no answer (each component is folded on its own, and the fold sorts out owners).
    func componentMap() throws(ServiceError) -> ComponentMap {
        if let eventLog = log as? EventLog {
            var union = KeyUnion<UInt64>()
            var firstNodes: [Int32] = []
            try Self.mapErrors {
                try eventLog.forEachView { view, _, _ in
                    var first: Int32 = -1
                    view.forEachSubjectKeyHash { hash in
                        let id = union.id(of: hash)
                        if first < 0 { first = id } else { union.union(first, id) }
                    }
                    firstNodes.append(first)
                }
            }
            return ComponentMap(firstNodes: firstNodes, union: &union)
        }
        var union = KeyUnion<String>()
        var firstNodes: [Int32] = []
        try Self.mapErrors {
            try log.forEach(from: 1) { record in
                let keys = record.subjectKeys.map { union.id(of: $0) }
                for other in keys.dropFirst() { union.union(keys[0], other) }
                firstNodes.append(keys.first ?? -1)
            }
        }
        return ComponentMap(firstNodes: firstNodes, union: &union)
    }
}
