/// The shape of the fold's small open-addressed tables (a subscription's transactions, its members' keys, a
/// component's subscriptions): a power of two of slots, and where a key's hash probes first (Fibonacci hashing:
/// the top bits of the hash times 2⁶⁴/φ, which spreads hashes whose low bits agree).
struct HashSlots {
    /// log₂ of the number of slots.
    let bits: Int

    /// Room for `keys` keys at most half full, and at least 8 slots.
    init(keys: Int) {
        var bits = 3
        while 1 << bits < 2 * keys { bits += 1 }
        self.bits = bits
    }

    /// A table of `count` slots, a power of two.
    init(count: Int) {
        bits = count.trailingZeroBitCount
    }

    /// The number of slots.
    var count: Int { 1 << bits }

    /// The mask that wraps a probe around the table.
    var mask: Int { count - 1 }

    /// The first slot `hash` probes.
    @inline(__always)
    func first(_ hash: UInt64) -> Int {
        Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - bits))
    }
}
