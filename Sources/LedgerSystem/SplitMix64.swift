/// SplitMix64: a tiny, fast, deterministic generator. It replays the same sequence from a seed (property
/// tests, benchmark workloads) and expands one seed into well-mixed state words (the simulator's xoshiro).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The generator's state; each ``next()`` advances it by the golden gamma `0x9E3779B97F4A7C15`.
    public var state: UInt64

    /// Starts the sequence at `seed`.
    @inlinable public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    @inlinable public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
