/// Which way a figure is better.
enum Better {
    /// Rates: more is better.
    case higher
    /// Latencies, bytes, ratios of growth: less is better.
    case lower
}

/// The target for a figure.
struct Target {
    var value: Double
    var better: Better

    static func atLeast(_ value: Double) -> Target { Target(value: value, better: .higher) }
    static func atMost(_ value: Double) -> Target { Target(value: value, better: .lower) }

    /// `≥ 3,000,000` or `≤ 100`.
    var text: String { (better == .higher ? "≥ " : "≤ ") + format(value, significant: 3) }

    /// Whether `measured` meets it.
    func met(by measured: Double) -> Bool { better == .higher ? measured >= value : measured <= value }
}

/// One line of the table: what is measured, its unit, which way is better, the target, and whether SQLite
/// is measured beside it.
struct Metric {
    var id: String
    var title: String
    var unit: String
    var better: Better
    var target: Target?
    var hasPeer: Bool

    init(_ id: String, _ title: String, unit: String, better: Better, target: Target? = nil, peer: Bool = false) {
        self.id = id
        self.title = title
        self.unit = unit
        self.better = better
        self.target = target
        self.hasPeer = peer
    }
}

/// One run's value of one metric: the ledger's, and SQLite's when measured.
struct Sample {
    var ledger: Double
    var peer: Double?

    init(_ ledger: Double, peer: Double? = nil) {
        self.ledger = ledger
        self.peer = peer
    }
}

/// A group of metrics measured together: one warm-up run, then the measured runs, each returning one sample
/// per metric (in ``metrics`` order).
struct BenchRow {
    /// The id `--only` selects.
    var id: String
    var metrics: [Metric]
    var run: (BenchContext) throws -> [Sample]
}

/// A metric's samples over the measured runs.
struct MetricResult {
    var metric: Metric
    var ledger: [Double]
    var peer: [Double]

    var median: Double { Self.median(ledger) }
    var peerMedian: Double? { peer.isEmpty ? nil : Self.median(peer) }

    /// How many times better the ledger is than SQLite (medians; above 1: the ledger is better).
    var advantage: Double? {
        guard let peer = peerMedian, peer > 0, median > 0 else { return nil }
        return metric.better == .higher ? median / peer : peer / median
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
