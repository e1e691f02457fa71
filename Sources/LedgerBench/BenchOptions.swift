/// Command-line options of `ledger-bench`.
struct BenchOptions {
    var records = 200_000
    var batch = 10_000
    var runs = 5
    var directory = "/tmp"
    var jsonPath: String?
    var only: Set<String> = []

    static let usage = """
        usage: ledger-bench [--records N] [--batch N] [--runs N] [--dir DIR] [--json FILE] [--only ROW,ROW]
          --records N   records per run (default 200000)
          --batch N     records per append call / SQLite transaction (default 10000)
          --runs N      measured runs per row, after one warm-up; the median is reported (default 5)
          --dir DIR     where the temporary data directories go (default /tmp)
          --json FILE   also write the results as JSON
          --only ROWS   run only these rows (comma-separated ids)
        """

    static func parse(_ arguments: [String]) -> Result<BenchOptions, BenchUsageError> {
        var options = BenchOptions()
        var index = 0
        func value() -> String? {
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        while index < arguments.count {
            let flag = arguments[index]
            switch flag {
            case "--records":
                guard let n = value().flatMap(Int.init), n > 0 else { return .failure(.init("--records needs N > 0")) }
                options.records = n
            case "--batch":
                guard let n = value().flatMap(Int.init), n > 0 else { return .failure(.init("--batch needs N > 0")) }
                options.batch = n
            case "--runs":
                guard let n = value().flatMap(Int.init), n > 0 else { return .failure(.init("--runs needs N > 0")) }
                options.runs = n
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
            index += 1
        }
        return .success(options)
    }
}

/// A usage error: the message, then the usage text.
struct BenchUsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
