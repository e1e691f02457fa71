import LedgerSystem

/// The simulator's deterministic pseudo-random number generator: xoshiro256** seeded through SplitMix64.
///
/// The same seed always gives the same sequence on every platform, which is what makes a simulation
/// reproducible byte for byte. `SystemRandomNumberGenerator` is never used. Each user draws from a stream
/// of its own (``SimulationRandom/init(seed:stream:)``), so adding users never changes the earlier ones.
public struct SimulationRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    /// Creates a generator whose state is expanded from `seed` with SplitMix64.
    public init(seed: UInt64) {
        var mixer = SplitMix64(seed: seed)
        s0 = mixer.next()
        s1 = mixer.next()
        s2 = mixer.next()
        s3 = mixer.next()
        if s0 | s1 | s2 | s3 == 0 { s0 = 0x9E37_79B9_7F4A_7C15 }  // the all-zero state is a fixed point
    }

    /// Creates the generator of one independent stream (e.g. one user) of a seed.
    public init(seed: UInt64, stream: UInt64) {
        var mixer = SplitMix64(seed: seed ^ (stream &* 0xD1B5_4A32_D192_ED03))
        self.init(seed: mixer.next() ^ stream)
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        let result = rotate(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotate(s3, 45)
        return result
    }

    private func rotate(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    /// A uniform double in `[0, 1)` with 53 bits of precision.
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool {
        p > 0 && unit() < p
    }

    /// A uniform integer in `range` (unbiased).
    public mutating func int(in range: ClosedRange<Int64>) -> Int64 {
        let span = UInt64(bitPattern: range.upperBound &- range.lowerBound)
        if span == .max { return Int64(bitPattern: next()) }
        return range.lowerBound &+ Int64(bitPattern: uniform(below: span + 1))
    }

    /// A uniform integer in `range` (unbiased).
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        Int(int(in: Int64(range.lowerBound)...Int64(range.upperBound)))
    }

    /// A uniform value below `bound` (> 0), by Lemire's multiply-and-reject method.
    mutating func uniform(below bound: UInt64) -> UInt64 {
        var product = next().multipliedFullWidth(by: bound)
        if product.low < bound {
            let threshold = (0 &- bound) % bound
            while product.low < threshold {
                product = next().multipliedFullWidth(by: bound)
            }
        }
        return product.high
    }

    /// An index chosen with probability proportional to its weight (weights ≥ 0, not all 0).
    public mutating func weighted(_ weights: [Double]) -> Int {
        let total = weights.reduce(0, +)
        var target = unit() * total
        for (index, weight) in weights.enumerated() {
            if target < weight { return index }
            target -= weight
        }
        return weights.lastIndex { $0 > 0 } ?? 0
    }

    /// A lower-case version-4 UUID made of random bits, e.g. `3f2a…-…`.
    public mutating func uuid() -> String {
        var high = next()
        var low = next()
        high = (high & ~0xF000) | 0x4000  // version 4
        low = (low & ~(0xC000_0000_0000_0000)) | 0x8000_0000_0000_0000  // RFC 4122 variant
        let hex = Self.hex(high, 16) + Self.hex(low, 16)
        let chars = Array(hex)
        return String(chars[0..<8]) + "-" + String(chars[8..<12]) + "-" + String(chars[12..<16]) + "-"
            + String(chars[16..<20]) + "-" + String(chars[20..<32])
    }

    static func hex(_ value: UInt64, _ width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
