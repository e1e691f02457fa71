import LedgerJSON

/// The results as a markdown table (with date, machine, load and how the inputs were built) and as JSON.
struct BenchReport {
    var options: BenchOptions
    var machine: Machine
    var loadBefore: String
    var loadAfter: String
    var notes: [String]
    var results: [MetricResult]
    var peakMemoryKiB: Int
    var seconds: Double

    /// Figures computed from other figures' medians: the query p99's growth from the base to the large log.
    var derived: [MetricResult] {
        guard let large = options.largeRecords else { return [] }
        let (small, big) = (label(options.queryRecords), label(large))
        return [("p99", "p99"), ("cpu.p99", "p99 of CPU time")].compactMap { id, name in
            guard let base = results.first(where: { $0.metric.id == "query-\(small).\(id)" }),
                let grown = results.first(where: { $0.metric.id == "query-\(big).\(id)" }), base.median > 0
            else { return nil }
            let metric = Metric(
                "query.\(id).growth", "query \(name), \(big) ÷ \(small) records", unit: "ratio", better: .lower,
                target: .atMost(1.5), peer: true)
            let peer = (grown.peerMedian ?? 0) / max(base.peerMedian ?? 1, 1e-9)
            return MetricResult(metric: metric, ledger: [grown.median / base.median], peer: [peer])
        }
    }

    func markdown() -> String {
        var lines = [
            "ledger-bench, \(machine.date): \(machine.cpu), \(machine.cores) cores, "
                + "\(fixed(machine.memoryGiB, 1)) GiB, Linux \(machine.kernel); load average \(loadBefore) at the "
                + "start, \(loadAfter) at the end; medians of \(options.runs) runs after a warm-up; "
                + "\(fixed(seconds / 60, 1)) min in all.",
            "",
            "| figure | ledger | SQLite | ledger vs SQLite | unit | target | ledger vs target | ledger runs (min–max) |",
            "| --- | ---: | ---: | ---: | --- | --- | --- | --- |",
        ]
        for result in results + derived {
            let metric = result.metric
            let peer = result.peerMedian.map { format($0, significant: 3) } ?? "—"
            let advantage = result.advantage.map { ratio in
                let text = fixed(ratio, ratio < 10 ? 2 : 1) + "×"
                return text == "1.00×" ? "even" : text + (ratio > 1 ? " better" : " worse")
            }
            let target = metric.target.map(\.text) ?? "—"
            let versus = metric.target.map { target in
                fixed(result.median / target.value, 2) + "× " + (target.met(by: result.median) ? "✓ meets" : "✗ misses")
            }
            let low = result.ledger.min() ?? 0
            let high = result.ledger.max() ?? 0
            let range = result.ledger.count > 1 ? "\(format(low, significant: 3))–\(format(high, significant: 3))" : ""
            lines.append(
                "| \(metric.title) | \(format(result.median, significant: 3)) | \(peer) | \(advantage ?? "—") | "
                    + "\(metric.unit) | \(target) | \(versus ?? "—") | \(range) |")
        }
        lines.append(
            "| peak memory of the benchmark process (VmHWM) | \(format(Double(peakMemoryKiB) / 1024)) | | | MiB | | | |"
        )
        lines.append("")
        lines += notes.map { "- \($0)" }
        return lines.joined(separator: "\n")
    }

    /// The results as one JSON document (`--json FILE`): the machine and options, then every metric with its
    /// runs, SQLite's and the target.
    func json() -> String {
        let metrics = (results + derived).map { result -> JSONValue in
            let metric = result.metric
            return .object([
                "id": .string(metric.id), "title": .string(metric.title), "unit": .string(metric.unit),
                "better": .string(metric.better == .higher ? "higher" : "lower"),
                "median": number(result.median), "runs": .array(result.ledger.map(number)),
                "sqliteMedian": result.peerMedian.map(number) ?? .null, "sqliteRuns": .array(result.peer.map(number)),
                "target": metric.target.map { number($0.value) } ?? .null,
                "meetsTarget": .bool(metric.target.map { $0.met(by: result.median) }),
            ])
        }
        let document: JSONValue = .object([
            "date": .string(machine.date), "cpu": .string(machine.cpu), "cores": .int(machine.cores),
            "memoryGiB": number(machine.memoryGiB), "kernel": .string(machine.kernel),
            "loadAverageStart": .string(loadBefore), "loadAverageEnd": .string(loadAfter),
            "runs": .int(options.runs), "records": .int(options.records), "batch": .int(options.batch),
            "queryRecords": .int(options.queryRecords), "rebuildRecords": .int(options.rebuildRecords),
            "largeRecords": .integer(options.largeRecords.map(Int64.init)), "queries": .int(options.queries),
            "seconds": number(seconds), "peakMemoryKiB": .int(peakMemoryKiB),
            "notes": .array(notes.map(JSONValue.string)), "metrics": .array(metrics),
        ])
        return document.serialized(.pretty) + "\n"
    }

    /// A figure rounded to three decimals (null when not finite).
    private func number(_ value: Double) -> JSONValue {
        value.isFinite ? .double((value * 1000).rounded() / 1000) : .null
    }
}

/// `1M`, `10M`, `200k`: a record count as the table names it.
func label(_ records: Int) -> String {
    if records % 1_000_000 == 0 { return "\(records / 1_000_000)M" }
    if records % 1_000 == 0 { return "\(records / 1_000)k" }
    return format(Double(records))
}

/// A number for the table: thousands separators from 100 on, else `significant` significant digits.
func format(_ value: Double, significant: Int = 3) -> String {
    guard value.isFinite else { return "—" }
    if abs(value) >= 100 { return grouped(Int(value.rounded())) }
    var places = significant - 1
    var magnitude = abs(value)
    while magnitude >= 10 && places > 0 {
        magnitude /= 10
        places -= 1
    }
    return fixed(value, places)
}

/// An integer with thousands separators, e.g. `1,234,567`.
func grouped(_ value: Int) -> String {
    let digits = Array(String(abs(value)))
    var out: [Character] = value < 0 ? ["-"] : []
    for (index, digit) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
        out.append(digit)
    }
    return String(out)
}

/// A number with `places` decimals.
func fixed(_ value: Double, _ places: Int) -> String {
    guard value.isFinite else { return "null" }
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let scaled = Int((abs(value) * scale).rounded())
    let sign = value < 0 && scaled != 0 ? "-" : ""
    let whole = scaled / Int(scale)
    let fraction = String(scaled % Int(scale))
    return places == 0
        ? "\(sign)\(whole)" : "\(sign)\(whole).\(String(repeating: "0", count: places - fraction.count))\(fraction)"
}
