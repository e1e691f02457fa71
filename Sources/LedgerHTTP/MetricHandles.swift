import Synchronization

/// A monotonically increasing count.
public final class Counter: Sendable {
    private let storage = Atomic<UInt64>(0)

    /// Adds `amount` (default 1).
    public func increment(by amount: UInt64 = 1) { storage.wrappingAdd(amount, ordering: .relaxed) }

    /// The current count.
    public var value: UInt64 { storage.load(ordering: .relaxed) }
}

/// A value that goes up and down.
public final class Gauge: Sendable {
    private let bits = Atomic<UInt64>(0.0.bitPattern)

    /// Sets the value.
    public func set(_ value: Double) { bits.store(value.bitPattern, ordering: .relaxed) }

    /// Adds `delta` (negative to subtract).
    public func add(_ delta: Double) {
        var current = bits.load(ordering: .relaxed)
        while true {
            let next = (Double(bitPattern: current) + delta).bitPattern
            let (exchanged, original) = bits.compareExchange(
                expected: current, desired: next, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// The current value.
    public var value: Double { Double(bitPattern: bits.load(ordering: .relaxed)) }
}

/// Observations counted into cumulative buckets, with their sum and count.
public final class Histogram: Sendable {
    /// Latency buckets in seconds, from 0.5 ms to 10 s.
    public static let defaultBuckets: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    /// The bucket upper bounds, ascending (an implicit `+Inf` bucket follows).
    public let buckets: [Double]
    private let state: Mutex<(counts: [UInt64], sum: Double, count: UInt64)>

    /// A histogram with the given upper bounds.
    public init(buckets: [Double]) {
        self.buckets = buckets.sorted()
        state = Mutex((Array(repeating: 0, count: buckets.count), 0, 0))
    }

    /// Records one observation.
    public func observe(_ value: Double) {
        let index = buckets.firstIndex { value <= $0 }
        state.withLock { state in
            if let index { state.counts[index] += 1 }
            state.sum += value
            state.count += 1
        }
    }

    /// How many observations were recorded.
    public var count: UInt64 { state.withLock { $0.count } }

    /// The sum of all observations.
    public var sum: Double { state.withLock { $0.sum } }

    /// The Prometheus lines for this series.
    func rendered(name: String, labels: MetricLabels) -> String {
        let (counts, sum, count) = state.withLock { ($0.counts, $0.sum, $0.count) }
        var out = ""
        var cumulative: UInt64 = 0
        for (bound, bucketCount) in zip(buckets, counts) {
            cumulative += bucketCount
            out += "\(name)_bucket\(labels.rendered(extra: ("le", MetricsRegistry.format(bound)))) \(cumulative)\n"
        }
        out += "\(name)_bucket\(labels.rendered(extra: ("le", "+Inf"))) \(count)\n"
        out += "\(name)_sum\(labels.rendered()) \(MetricsRegistry.format(sum))\n"
        out += "\(name)_count\(labels.rendered()) \(count)\n"
        return out
    }
}
