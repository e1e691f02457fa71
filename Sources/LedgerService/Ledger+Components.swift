import LedgerCore
import LedgerLog

/// Components: the groups of records that can influence each other's entitlement. Records sharing a
/// subject key (a user, an account, a subscription) are in one component, so a user with their
/// subscriptions, links and corrections is folded together, and nothing outside it matters.
extension Ledger {
    /// The seqs of every component, each sorted; found from the records' subject keys alone (no decoding).
    public func components() throws(ServiceError) -> [[UInt64]] {
        var finder = KeyUnion()
        var keyless: [UInt64] = []
        var firstKey: [UInt64: Int] = [:]
        do {
            try log.forEach(from: 1) { record in
                let keys = record.subjectKeys.map { finder.id(of: $0) }
                guard let first = keys.first else {
                    keyless.append(record.seq)
                    return
                }
                for other in keys.dropFirst() { finder.union(first, other) }
                firstKey[record.seq] = first
            }
        } catch let error as LogError {
            throw ServiceError(error)
        } catch {
            throw ServiceError(.other, "scanning the log: \(error)")
        }
        var groups: [Int: [UInt64]] = [:]
        for (seq, key) in firstKey { groups[finder.root(key), default: []].append(seq) }
        return groups.values.map { $0.sorted() }.sorted { $0[0] < $1[0] }
    }

    /// Calls `body` with the decoded entries of each component.
    public func forEachComponent(progress: ((Int) -> Void)? = nil, _ body: ([LedgerEntry]) throws(ServiceError) -> Void)
        throws(ServiceError)
    {
        var done = 0
        for component in try components() {
            var entries: [LedgerEntry] = []
            entries.reserveCapacity(component.count)
            for seq in component { entries.append(try entry(seq: seq)) }
            try body(entries)
            done += component.count
            progress?(done)
        }
    }
}

/// Union-find over subject keys.
struct KeyUnion {
    private var ids: [String: Int] = [:]
    private var parent: [Int] = []

    mutating func id(of key: String) -> Int {
        if let id = ids[key] { return id }
        let id = parent.count
        ids[key] = id
        parent.append(id)
        return id
    }

    mutating func root(_ id: Int) -> Int {
        var node = id
        while parent[node] != node {
            parent[node] = parent[parent[node]]
            node = parent[node]
        }
        return node
    }

    mutating func union(_ a: Int, _ b: Int) {
        let ra = root(a)
        let rb = root(b)
        if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
    }
}
