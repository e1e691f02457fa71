import LedgerCore
import LedgerService

/// `ledger report KIND --from T --to T [--by day|week|month] [--csv | --json | --svg]`.
enum ReportCommand: LedgerCommand {
    /// `--from T`.
    static let from = OptionSpec("--from", value: "T", "Start (inclusive).")
    /// `--to T`.
    static let to = OptionSpec("--to", value: "T", "End (exclusive).")
    /// `--by UNIT`.
    static let by = OptionSpec("--by", value: "UNIT", "day, week or month (default day).")
    /// `--csv`.
    static let csv = OptionSpec("--csv", "CSV output.")
    /// `--svg`.
    static let svg = OptionSpec("--svg", "An SVG chart.")

    static let spec = CommandSpec(
        name: "report", summary: "Finance reports: sales, events, active, mrr, churn.",
        usage: [
            "report KIND --from T --to T [--by day|week|month] [--csv | --json | --svg] [--data DIR | --store URL]"
        ],
        options: [
            SharedOptions.data, SharedOptions.store, from, to, by, csv, SharedOptions.json, svg,
        ], positionals: 1...1, positionalName: "KIND")

    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let name = context.arguments.positionals[0]
        guard let kind = ReportKind(rawValue: name) else {
            throw CLIError.usage(
                "unknown report '\(name)': use \(ReportKind.allCases.map(\.rawValue).joined(separator: ", "))",
                command: "report")
        }
        guard let from = try context.instant(Self.from), let to = try context.instant(Self.to) else {
            throw CLIError.usage("--from T and --to T are required", command: "report")
        }
        guard from < to else { throw CLIError.usage("--to must be after --from", command: "report") }
        let unitName = try context.value(Self.by) ?? "day"
        guard let unit = ReportPeriod.Unit(rawValue: unitName) else {
            throw CLIError.usage("--by must be day, week or month", command: "report")
        }
        let period = ReportPeriod(from: from, to: to, unit: unit)
        guard period.buckets.count <= 10_000 else {
            throw CLIError.usage("that is more than 10,000 buckets; use a coarser --by", command: "report")
        }
        var formats: [OptionSpec] = []
        for format in [csv, SharedOptions.json, svg] where try context.has(format) { formats.append(format) }
        guard formats.count <= 1 else {
            throw CLIError.usage("choose one of --csv, --json and --svg", command: "report")
        }
        let ledger = try Commands.openReader(context)
        defer { ledger.close() }
        let table: ReportTable
        do {
            table = try ledger.report(kind, period: period)
        } catch {
            throw Commands.failure(error)
        }
        switch formats.first {
        case csv: Terminal.out(table.csv)
        case SharedOptions.json: context.printJSON(table.json)
        case svg: Terminal.out(table.svg())
        default:
            let environment = ledger.environment?.rawValue ?? "empty ledger"
            Terminal.line(
                "\(kind.rawValue) report, \(environment), \(from.iso8601) – \(to.iso8601) by \(unit.rawValue)")
            Terminal.out(table.text)
        }
        return 0
    }
}
