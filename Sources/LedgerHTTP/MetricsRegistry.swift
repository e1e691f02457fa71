import Synchronization

/// A registry of counters, gauges and histograms with labels, rendered in the Prometheus text format.
///
/// Asking for the same name and labels twice returns the same metric, so callers may either keep the
/// handle or look it up on each use. A name belongs to one type; registering it as another is a
/// programming error. Safe to use from any thread.
public final class MetricsRegistry: Sendable {
    enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    enum Series: Sendable {
        case counter(Counter)
        case gauge(Gauge)
        case computed(@Sendable () -> Double)
        case histogram(Histogram)
    }

    struct Family: Sendable {
        var name: String
        var help: String
        var kind: Kind
        var order: [MetricLabels] = []
        var series: [MetricLabels: Series] = [:]
    }

    private let families = Mutex<(order: [String], byName: [String: Family])>(([], [:]))

    /// An empty registry.
    public init() {}

    /// The counter `name` with `labels`, created at zero on first use.
    public func counter(_ name: String, help: String, labels: MetricLabels = [:]) -> Counter {
        let series = lookup(name, help: help, kind: .counter, labels: labels) { .counter(Counter()) }
        guard case .counter(let counter) = series else { preconditionFailure("\(name) is not a counter") }
        return counter
    }

    /// The gauge `name` with `labels`, created at zero on first use.
    public func gauge(_ name: String, help: String, labels: MetricLabels = [:]) -> Gauge {
        let series = lookup(name, help: help, kind: .gauge, labels: labels) { .gauge(Gauge()) }
        guard case .gauge(let gauge) = series else { preconditionFailure("\(name) is not a settable gauge") }
        return gauge
    }

    /// Registers a gauge whose value is read by `value` each time the metrics are rendered
    /// (e.g. the log's head sequence number). A second registration of the same series is ignored.
    public func gauge(_ name: String, help: String, labels: MetricLabels = [:], value: @escaping @Sendable () -> Double)
    {
        _ = lookup(name, help: help, kind: .gauge, labels: labels) { .computed(value) }
    }

    /// Registers a counter whose value is read by `value` each time the metrics are rendered (a count kept
    /// elsewhere, which only grows). A second registration of the same series is ignored.
    public func counter(
        _ name: String, help: String, labels: MetricLabels = [:], value: @escaping @Sendable () -> Double
    ) {
        _ = lookup(name, help: help, kind: .counter, labels: labels) { .computed(value) }
    }

    /// The histogram `name` with `labels`, created empty on first use with `buckets` (upper bounds).
    public func histogram(
        _ name: String, help: String, labels: MetricLabels = [:], buckets: [Double] = Histogram.defaultBuckets
    ) -> Histogram {
        let series = lookup(name, help: help, kind: .histogram, labels: labels) {
            .histogram(Histogram(buckets: buckets))
        }
        guard case .histogram(let histogram) = series else { preconditionFailure("\(name) is not a histogram") }
        return histogram
    }

    private func lookup(
        _ name: String, help: String, kind: Kind, labels: MetricLabels, make: () -> Series
    ) -> Series {
        families.withLock { state in
            if let existing = state.byName[name]?.series[labels] { return existing }
            var family = state.byName[name] ?? Family(name: name, help: help, kind: kind)
            precondition(family.kind == kind, "metric \(name) is a \(family.kind.rawValue), not a \(kind.rawValue)")
            if state.byName[name] == nil { state.order.append(name) }
            let series = make()
            family.order.append(labels)
            family.series[labels] = series
            state.byName[name] = family
            return series
        }
    }

    /// Every metric in the Prometheus text exposition format (version 0.0.4).
    public func renderPrometheus() -> String {
        let snapshot = families.withLock { state in state.order.compactMap { state.byName[$0] } }
        var out = ""
        for family in snapshot {
            out += "# HELP \(family.name) \(Self.escapeHelp(family.help))\n"
            out += "# TYPE \(family.name) \(family.kind.rawValue)\n"
            for labels in family.order {
                guard let series = family.series[labels] else { continue }
                switch series {
                case .counter(let counter):
                    out += "\(family.name)\(labels.rendered()) \(counter.value)\n"
                case .gauge(let gauge):
                    out += "\(family.name)\(labels.rendered()) \(Self.format(gauge.value))\n"
                case .computed(let value):
                    out += "\(family.name)\(labels.rendered()) \(Self.format(value()))\n"
                case .histogram(let histogram):
                    out += histogram.rendered(name: family.name, labels: labels)
                }
            }
        }
        return out
    }

    /// A sample value as Prometheus writes it.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    private static func escapeHelp(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}
