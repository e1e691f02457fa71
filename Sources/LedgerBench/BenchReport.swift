import LedgerSystem

/// One row's measured rates.
struct BenchResult {
    var row: BenchRow
    var rates: [Double]

    var median: Double {
        let sorted = rates.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}

/// The results as a markdown table and as JSON.
struct BenchReport {
    var options: BenchOptions
    var results: [BenchResult]
    var peakMemoryKiB: Int

    private func median(_ id: String) -> Double? { results.first { $0.row.id == id }?.median }

    func markdown() -> String {
        var lines = [
            "| row | median | unit | runs (min–max) |",
            "| --- | ---: | --- | --- |",
        ]
        for result in results {
            let low = result.rates.min() ?? 0
            let high = result.rates.max() ?? 0
            lines.append(
                "| \(result.row.title) | \(format(result.median)) | \(result.row.unit) | "
                    + "\(format(low))–\(format(high)) |")
        }
        if let log = median("log.append"), let sqlite = median("sqlite.append"), sqlite > 0 {
            lines.append("| ledger ÷ SQLite, durable batched append | \(fixed(log / sqlite, 2))× | ratio | |")
        }
        lines.append("| peak memory (VmHWM) | \(peakMemoryKiB / 1024) | MiB | |")
        return lines.joined(separator: "\n")
    }

    func json() -> String {
        var rows: [String] = []
        for result in results {
            let rates = result.rates.map { fixed($0, 1) }.joined(separator: ",")
            rows.append(
                "{\"id\":\"\(result.row.id)\",\"title\":\"\(result.row.title)\",\"unit\":\"\(result.row.unit)\","
                    + "\"median\":\(fixed(result.median, 1)),\"runs\":[\(rates)]}")
        }
        var ratio = "null"
        if let log = median("log.append"), let sqlite = median("sqlite.append"), sqlite > 0 {
            ratio = fixed(log / sqlite, 3)
        }
        return "{\"records\":\(options.records),\"batch\":\(options.batch),\"runs\":\(options.runs),"
            + "\"peakMemoryKiB\":\(peakMemoryKiB),\"appendRatioVsSQLite\":\(ratio),\"rows\":[\n  "
            + rows.joined(separator: ",\n  ") + "\n]}\n"
    }
}

/// Peak resident memory of this process, from /proc/self/status (VmHWM), in KiB.
func peakMemoryKiB() -> Int {
    guard let bytes = try? PosixFileSystem().readStream("/proc/self/status") else { return 0 }
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        return fields.count > 1 ? Int(fields[1]) ?? 0 : 0
    }
    return 0
}

/// A rate with thousands separators, e.g. `1,234,567`.
func format(_ value: Double) -> String {
    let digits = Array(String(Int(value.rounded())))
    var out: [Character] = []
    for (index, digit) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
        out.append(digit)
    }
    return String(out)
}

/// A number with `places` decimals.
func fixed(_ value: Double, _ places: Int) -> String {
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let scaled = Int((value * scale).rounded())
    let whole = scaled / Int(scale)
    let fraction = String(abs(scaled % Int(scale)))
    return places == 0 ? "\(whole)" : "\(whole).\(String(repeating: "0", count: places - fraction.count))\(fraction)"
}
