import LedgerCrypto

/// The bounded cache of validated chains behind `ChainVerifier` (first in, first out). Not
/// thread-safe by itself: `ChainVerifier` keeps it in a `Mutex`.
public struct ChainCache: Sendable {
  /// A chain's identity: the exact leaf and intermediate DER bytes.
  struct Key: Hashable, Sendable {
    let leaf: [UInt8]
    let intermediate: [UInt8]
  }

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

  private let capacity: Int
  private var entries: [Key: Entry] = [:]
  private var order: [Key] = []
  private(set) var statistics = Statistics()

  init(capacity: Int) { self.capacity = capacity }

  mutating func lookup(_ key: Key) -> Entry? {
    if let entry = entries[key] {
      statistics.hits += 1
      return entry
    }
    statistics.misses += 1
    return nil
  }

  mutating func insert(_ entry: Entry, for key: Key) {
    if entries.updateValue(entry, forKey: key) == nil {
      order.append(key)
      while order.count > capacity {
        entries[order.removeFirst()] = nil
        statistics.evictions += 1
      }
    }
    statistics.entries = entries.count
  }
}
