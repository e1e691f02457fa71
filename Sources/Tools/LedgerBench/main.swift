// ledger-bench: the ledger's figures against the targets, with SQLite measured in the same run.
//
// Every row gets one warm-up run and N measured runs; medians are reported with the peer's, the target and the
// ratio to it, the machine, the date and the load average, as a markdown table and optionally JSON.
import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

let options: BenchOptions
switch BenchOptions.parse(Array(CommandLine.arguments.dropFirst())) {
case .success(let parsed): options = parsed
case .failure(let error):
    if !error.message.isEmpty { writeLine(2, "error: \(error.message)") }
    writeLine(error.message.isEmpty ? 1 : 2, BenchOptions.usage)
    exit(error.message.isEmpty ? 0 : 64)
}

do {
    let started = now()
    let machine = Machine.current()
    let loadBefore = Machine.loadAverage()
    let context = try BenchContext(options: options)
    var results: [MetricResult] = []
    print(
        "ledger-bench: \(machine.cpu), \(machine.cores) cores, load average \(loadBefore); "
            + "\(options.runs) runs + 1 warm-up per row")
    let rows = options.rows
    let unknown = options.only.subtracting(rows.map(\.id))
    guard unknown.isEmpty else {
        throw BenchError("unknown row \(unknown.sorted().joined(separator: ", ")); rows: \(rows.map(\.id))")
    }
    for row in rows where options.only.isEmpty || options.only.contains(row.id) {
        var samples: [[Sample]] = []
        for run in 0...options.runs {
            let sample = try row.run(context)
            if run > 0 { samples.append(sample) }
        }
        for (index, metric) in row.metrics.enumerated() {
            let result = MetricResult(
                metric: metric, ledger: samples.map { $0[index].ledger }, peer: samples.compactMap { $0[index].peer })
            let peer = result.peerMedian.map { ", SQLite \(format($0, significant: 3))" } ?? ""
            print("  \(metric.id): \(format(result.median, significant: 3)) \(metric.unit)\(peer)")
            results.append(result)
        }
    }
    let report = BenchReport(
        options: options, machine: machine, loadBefore: loadBefore, loadAfter: Machine.loadAverage(),
        notes: context.notes, results: results, peakMemoryKiB: MemoryProbe.peakKiB(), seconds: now() - started)
    print("")
    print(report.markdown())
    if let path = options.jsonPath {
        try PosixFileSystem().writeFileDurably(path, Array(report.json().utf8))
        print("\nresults written to \(path)")
    }
} catch {
    writeLine(2, "error: \(error)")
    exit(70)
}

/// Writes a line to a file descriptor (1: stdout, 2: stderr).
func writeLine(_ fd: Int32, _ text: String) {
    let bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}
