import LedgerCore
import LedgerService

/// `ledger report KIND --from T --to T [--by day|week|month] [--csv | --json | --svg]`.
enum ReportCommand {
    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let name = context.arguments.positionals[0]
        guard let kind = ReportKind(rawValue: name) else {
            throw CLIError.usage(
                "unknown report '\(name)': use \(ReportKind.allCases.map(\.rawValue).joined(separator: ", "))",
                command: "report")
        }
        guard let from = try context.instant("--from"), let to = try context.instant("--to") else {
            throw CLIError.usage("--from T and --to T are required", command: "report")
        }
        guard from < to else { throw CLIError.usage("--to must be after --from", command: "report") }
        let unitName = context.arguments.value("--by") ?? "day"
        guard let unit = ReportPeriod.Unit(rawValue: unitName) else {
            throw CLIError.usage("--by must be day, week or month", command: "report")
        }
        let period = ReportPeriod(from: from, to: to, unit: unit)
        guard period.buckets.count <= 10_000 else {
            throw CLIError.usage("that is more than 10,000 buckets; use a coarser --by", command: "report")
        }
        let formats = ["--csv", "--json", "--svg"].filter(context.arguments.has)
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
        case "--csv": Terminal.out(table.csv)
        case "--json": context.printJSON(table.json)
        case "--svg": Terminal.out(table.svg())
        default:
            let environment = ledger.environment?.rawValue ?? "empty ledger"
            Terminal.line(
                "\(kind.rawValue) report, \(environment), \(from.iso8601) – \(to.iso8601) by \(unit.rawValue)")
            Terminal.out(table.text)
        }
        return 0
    }
}
