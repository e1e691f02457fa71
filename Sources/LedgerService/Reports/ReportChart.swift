/// A bar chart of a report: one group of stacked bars per bucket, values above zero stacked up and below zero
/// stacked down, with an optional line of net totals.
public struct ReportChart: Sendable, Hashable {
    /// One stacked series.
    public struct Series: Sendable, Hashable {
        /// Its legend entry.
        public var name: String
        /// One value per bucket, in the chart's unit.
        public var values: [Double]
        /// Its colour (`#e15759`), else the palette's next.
        public var color: String?

        /// Creates a series.
        public init(name: String, values: [Double], color: String? = nil) {
            self.name = name
            self.values = values
            self.color = color
        }
    }

    /// What the chart shows, e.g. `Sales (EUR), by month (UTC)`.
    public var title: String
    /// The unit of the y axis: a currency code, `subscriptions`, `events`, `%`.
    public var unit: String
    /// The x axis title, e.g. `month (UTC)`.
    public var xTitle: String
    /// One label per bucket.
    public var labels: [String]
    /// The stacked series, in legend order.
    public var series: [Series]
    /// The net total of each bucket, drawn as a line with its own legend entry, when given.
    public var net: Series?

    /// Creates a chart.
    public init(title: String, unit: String, xTitle: String, labels: [String], series: [Series], net: Series? = nil) {
        self.title = title
        self.unit = unit
        self.xTitle = xTitle
        self.labels = labels
        self.series = series
        self.net = net
    }

    /// The lowest and highest value the bars and line reach (0 always included).
    var extent: (low: Double, high: Double) {
        var low = 0.0
        var high = 0.0
        for index in labels.indices {
            let values = series.map { $0.values.indices.contains(index) ? $0.values[index] : 0 }
            high = max(high, values.filter { $0 > 0 }.reduce(0, +))
            low = min(low, values.filter { $0 < 0 }.reduce(0, +))
            if let net, net.values.indices.contains(index) {
                high = max(high, net.values[index])
                low = min(low, net.values[index])
            }
        }
        return (low, high)
    }

    /// Round tick values (1, 2, 2.5 or 5 × 10ⁿ apart) covering `low…high`: at least 4, at most about 9.
    static func ticks(low: Double, high: Double) -> [Double] {
        let span = high - low > 0 ? high - low : 1
        let rough = span / 5
        var magnitude = 1.0
        while magnitude * 10 <= rough { magnitude *= 10 }
        while magnitude > rough { magnitude /= 10 }
        let step = [1.0, 2.0, 2.5, 5.0, 10.0].map { $0 * magnitude }.first { span / $0 <= 8 } ?? magnitude * 10
        let first = (low / step).rounded(.down)
        let last = (high / step).rounded(.up)
        var ticks: [Double] = []
        var index = first
        while index <= last, ticks.count < 40 {
            ticks.append(index * step)
            index += 1
        }
        if ticks.count < 2 { ticks.append((last + 1) * step) }
        return ticks
    }

    /// A tick label: thousands grouped with commas, as many decimals as the step needs (at most 3).
    static func tickLabel(_ value: Double, step: Double) -> String {
        var decimals = 0
        var scaled = step
        while decimals < 3, (scaled - scaled.rounded()).magnitude > 1e-9 {
            decimals += 1
            scaled *= 10
        }
        var factor = 1.0
        for _ in 0..<decimals { factor *= 10 }
        let rounded = (value * factor).rounded()
        let negative = rounded < 0
        let whole = Int64((rounded.magnitude / factor).rounded(.down))
        var digits = String(whole)
        var grouped = ""
        while digits.count > 3 {
            grouped = "," + digits.suffix(3) + grouped
            digits = String(digits.dropLast(3))
        }
        grouped = digits + grouped
        if decimals > 0 {
            let fraction = Int64(rounded.magnitude) - whole * Int64(factor)
            var text = String(fraction)
            while text.count < decimals { text = "0" + text }
            grouped += "." + text
        }
        return (negative && rounded != 0 ? "−" : "") + grouped
    }
}
