import LedgerSystem

/// A small deterministic generator (SplitMix64), so property tests and shuffles replay the same cases every run.
public typealias SeededRandom = SplitMix64
