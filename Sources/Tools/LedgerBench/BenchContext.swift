import LedgerLog
import LedgerService
import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Shared state for the rows: options, a scratch directory, and the inputs built once per invocation (the
/// synthetic workload, the populations' logs, the signed simulation) so every run of every row reuses them.
final class BenchContext {
    let options: BenchOptions
    let scratch: String
    private var counter = 0
    private var seeds: UInt64 = 0
    private var prebuilt: String?
    private var workloadCache: Workload?
    private var populations: [Int: PopulationLog] = [:]
    private var readers: [Int: Ledger] = [:]
    private var ingestCache: IngestInput?
    /// Notes for the report: how each input was built.
    private(set) var notes: [String] = []

    init(options: BenchOptions) throws {
        self.options = options
        var template = Array("\(options.directory)/ledger-bench-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw BenchError("cannot create a scratch directory in \(options.directory)")
        }
        scratch = String(cString: made)
    }

    /// The synthetic records of the append, open and scan rows (opaque 300–400 byte payloads).
    var workload: Workload {
        if let workloadCache { return workloadCache }
        let made = Workload(count: options.records)
        workloadCache = made
        return made
    }

    /// A new, empty path inside the scratch directory.
    func freshPath(_ name: String) -> String {
        counter += 1
        return "\(scratch)/\(name)-\(counter)"
    }

    /// A log holding the whole synthetic workload, built once.
    func builtLog() throws -> String {
        if let prebuilt { return prebuilt }
        let path = freshPath("prebuilt")
        let log = try EventLog.openWriter(at: path, environment: "sandbox")
        let entries = workload.entries
        for start in stride(from: 0, to: entries.count, by: 10_000) {
            _ = try log.append(Array(entries[start..<min(start + 10_000, entries.count)]))
        }
        log.close()
        prebuilt = path
        return path
    }

    /// A log (and its SQLite twin) of `records` realistic records, built once.
    func population(records: Int) throws -> PopulationLog {
        if let built = populations[records] { return built }
        let path = freshPath("population-\(records)")
        _ = mkdir(path + "-sqlite", 0o755)
        let built = try PopulationLog.build(
            records: records, seed: 0x1ED6_E5, path: path, sqlitePath: path + "-sqlite/ledger.sqlite")
        populations[records] = built
        note(
            "population of \(format(Double(built.records))) records: \(format(Double(built.users))) users "
                + "(\(fixed(built.generatedPerUser, 1)) records each over their first year and a month, the latest cut "
                + "to fit \(format(Double(built.records))) records); built (ledger and "
                + "SQLite) in \(fixed(built.seconds, 1)) s")
        return built
    }

    /// A reader over a population's log, opened once (its indexes load on the first query).
    func reader(records: Int) throws -> Ledger {
        if let reader = readers[records] { return reader }
        let reader = try Ledger.openReader(at: try population(records: records).path)
        readers[records] = reader
        return reader
    }

    /// The signed simulation of the ingest rows, built once.
    func ingestInput() throws -> IngestInput {
        if let ingestCache { return ingestCache }
        let started = now()
        let input = try IngestInput(users: options.ingestUsers, months: 12)
        ingestCache = input
        note(
            "ingest input: \(options.ingestUsers) simulated users × 12 months = \(format(Double(input.bodies.count))) "
                + "distinct signed notifications; simulated and signed in \(fixed(now() - started, 1)) s")
        return input
    }

    /// A new seed for a run's random choices (runs differ; invocations repeat).
    func nextSeed() -> UInt64 {
        seeds += 1
        return seeds
    }

    func note(_ text: String) {
        notes.append(text)
        print("  (\(text))")
    }

    func remove(_ path: String) { _ = system("rm -rf '\(path)'") }

    deinit {
        for reader in readers.values { reader.close() }
        remove(scratch)
    }
}

/// Seconds on the monotonic clock.
func now() -> Double { SystemClock.monotonicSeconds() }

/// Seconds of CPU time this thread has run: unlike ``now()``, it does not advance while other processes on a
/// busy machine have the core.
func cpuNow() -> Double { SystemClock.threadCPUSeconds() }

/// CPU time used so far by every thread of this process, in seconds.
func processCPUNow() -> Double { SystemClock.processCPUSeconds() }
