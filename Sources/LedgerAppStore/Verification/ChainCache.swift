import LedgerCrypto

/// The bounded cache of validated chains behind `ChainVerifier`, keyed by the exact leaf and
/// intermediate DER (first in, first out). Not thread-safe by itself: `ChainVerifier` keeps it in
/// a `Mutex`.
public struct ChainCache: Sendable {
    /// What a validated chain yields: the leaf key, and the windows (one per trust root the chain
    /// leads to) in which leaf, intermediate and root are all valid.
    struct Entry: Sendable {
        let leafKey: ECPublicKey
        let windows: [ClosedRange<Int64>]
    }

    /// Counters for tests and metrics.
    public struct Statistics: Hashable, Sendable {
        /// Lookups that found a validated chain.
        public var hits = 0
        /// Lookups that did not (each one is a full validation).
        public var misses = 0
        /// Chains currently held.
        public var entries = 0
        /// Chains dropped to stay within the capacity.
        public var evictions = 0
    }

    private var storage: BoundedCache<Entry>
    private var counters = Statistics()

    init(capacity: Int) { storage = BoundedCache(capacity: capacity) }

    /// The key for a chain: the leaf DER, a separator length, the intermediate DER.
    static func key(leaf: [UInt8], intermediate: [UInt8]) -> ByteKey {
        var bytes = [UInt8]()
        bytes.reserveCapacity(leaf.count + intermediate.count + 8)
        withUnsafeBytes(of: UInt64(leaf.count).bigEndian) { bytes += $0 }
        bytes += leaf
        bytes += intermediate
        return ByteKey(bytes)
    }

    mutating func lookup(_ key: ByteKey) -> Entry? {
        if let entry = storage[key] {
            counters.hits += 1
            return entry
        }
        counters.misses += 1
        return nil
    }

    mutating func insert(_ entry: Entry, for key: ByteKey) { storage.insert(entry, for: key) }

    var statistics: Statistics {
        var result = counters
        result.entries = storage.count
        result.evictions = storage.evictions
        return result
    }
}
