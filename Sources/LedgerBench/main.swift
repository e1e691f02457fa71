// ledger-bench: the log's throughput against SQLite, measured in the same run.
//
// Every row gets one warm-up run and N measured runs; the median is reported, with peak memory (VmHWM), as a
// markdown table and optionally JSON.
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
    let context = try BenchContext(options: options)
    var results: [BenchResult] = []
    print(
        "ledger-bench: \(options.records) records (300–400 byte payloads), batches of \(options.batch), "
            + "\(options.runs) runs + 1 warm-up per row")
    for row in BenchRow.all + BenchRow.postgres where options.only.isEmpty || options.only.contains(row.id) {
        var rates: [Double] = []
        for run in 0...options.runs {
            let rate = try row.run(context)
            if run > 0 { rates.append(rate) }
        }
        let result = BenchResult(row: row, rates: rates)
        print("  \(row.id): \(format(result.median)) \(row.unit)")
        results.append(result)
    }
    let report = BenchReport(options: options, results: results, peakMemoryKiB: peakMemoryKiB())
    print("")
    print(report.markdown())
    if let path = options.jsonPath {
        try PosixFileSystem().writeFileDurably(path, Array(report.json().utf8))
        print("results written to \(path)")
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
