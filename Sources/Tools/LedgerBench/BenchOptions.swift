/// Command-line options of `ledger-bench`.
struct BenchOptions {
    var records = 100_000
    var batch = 10_000
    var runs = 5
    var queryRecords = 1_000_000
    var rebuildRecords = 250_000
    var largeRecords: Int?
    var queries = 5_000
    var ingestUsers = 2_000
    var directory = "/tmp"
    var jsonPath: String?
    var only: Set<String> = []

    static let usage = """
        usage: ledger-bench [--records N] [--batch N] [--runs N] [--query-records N] [--rebuild-records N]
                            [--records-large N] [--queries N] [--ingest-users N] [--dir DIR] [--json FILE]
                            [--only ROW,ROW]
          --records N         synthetic records per run of the log rows (default 100000)
          --batch N           records per append call / SQLite transaction (default 10000)
          --runs N            measured runs per row, after one warm-up; medians are reported (default 5)
          --query-records N   the realistic population's size for the query and memory rows
                              (default 1000000, about 54,000 users)
          --rebuild-records N the population's size for the rebuild row (default 250000)
          --records-large N   also measure queries on a population of N records, e.g. 10000000
                              (about 500,000 users; its build takes a few minutes)
          --queries N         random point-in-time queries per run (default 5000)
          --ingest-users N    simulated users (× 12 months) signed for the ingest row (default 2000)
          --dir DIR           where the temporary data directories go (default /tmp)
          --json FILE         also write the results as JSON
          --only ROWS         run only these rows: append, group-commit, open, index-rebuild, verify,
                              primitives, query-1M, query-10M, rebuild-250k, memory-1M, ingest, and with a
                              PostgreSQL server ($LEDGER_BENCH_POSTGRES or $LEDGER_TEST_POSTGRES) pg.append,
                              pg.append.concurrent, pg.rebuild, pg.verify, pg.query-1M
        """

    static func parse(_ arguments: [String]) -> Result<BenchOptions, BenchUsageError> {
        var options = BenchOptions()
        var index = 0
        func value() -> String? {
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        func count(_ flag: String) -> Result<Int, BenchUsageError> {
            guard let n = value().flatMap(Int.init), n > 0 else { return .failure(.init("\(flag) needs N > 0")) }
            return .success(n)
        }
        while index < arguments.count {
            let flag = arguments[index]
            do {
                switch flag {
                case "--records": options.records = try count(flag).get()
                case "--batch": options.batch = try count(flag).get()
                case "--runs": options.runs = try count(flag).get()
                case "--query-records": options.queryRecords = try count(flag).get()
                case "--rebuild-records": options.rebuildRecords = try count(flag).get()
                case "--records-large": options.largeRecords = try count(flag).get()
                case "--queries": options.queries = try count(flag).get()
                case "--ingest-users": options.ingestUsers = try count(flag).get()
                case "--dir":
                    guard let path = value() else { return .failure(.init("--dir needs a directory")) }
                    options.directory = path
                case "--json":
                    guard let path = value() else { return .failure(.init("--json needs a file")) }
                    options.jsonPath = path
                case "--only":
                    guard let rows = value() else { return .failure(.init("--only needs row ids")) }
                    options.only = Set(rows.split(separator: ",").map(String.init))
                case "--help", "-h":
                    return .failure(.init(""))
                default:
                    return .failure(.init("unknown option \(flag)"))
                }
            } catch {
                return .failure(error)
            }
            index += 1
        }
        return .success(options)
    }

    /// Every row, in the order they run and print.
    var rows: [BenchRow] {
        var rows = BenchRow.logRows
        rows.append(BenchRow.queryRow(records: queryRecords, label: label(queryRecords)))
        if let largeRecords { rows.append(BenchRow.queryRow(records: largeRecords, label: label(largeRecords))) }
        rows.append(BenchRow.rebuildRow(records: rebuildRecords, label: label(rebuildRecords)))
        rows.append(BenchRow.memoryRow(records: queryRecords, label: label(queryRecords)))
        rows.append(BenchRow.ingestRow)
        rows.append(contentsOf: BenchRow.postgres(queryRecords: queryRecords, label: label(queryRecords)))
        return rows
    }
}

/// A usage error: the message, then the usage text.
struct BenchUsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
