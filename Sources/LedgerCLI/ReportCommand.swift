import LedgerCore
import LedgerService

/// `ledger report KIND --from T --to T [--by UNIT] [--timezone ZONE] … [--csv | --json | --svg | --html]`.
enum ReportCommand: LedgerCommand {
    /// `--from T`.
    static let from = OptionSpec("--from", value: "T", "Start (inclusive).")
    /// `--to T`.
    static let to = OptionSpec("--to", value: "T", "End (exclusive).")
    /// `--csv`.
    static let csv = OptionSpec("--csv", "CSV output.")
    /// `--svg`.
    static let svg = OptionSpec("--svg", "The report's charts as one SVG document.")

    static let spec = CommandSpec(
        name: "report", summary: "Finance reports: sales, events, active, mrr, churn.",
        usage: [
            "report KIND --from T --to T [--by day|week|month|fiscal-month] [--timezone UTC|pacific] "
                + "[--commission standard|small-business] [--stack period|devices] [--currency C --rates FILE] "
                + "[--csv | --json | --svg | --html] [--data DIR | --store URL]"
        ],
        options: [SharedOptions.data, SharedOptions.store, from, to] + ReportFlags.all + [
            csv, SharedOptions.json, svg,
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
        let period = try ReportFlags.period(context, from: from, to: to)
        guard period.buckets.count <= 10_000 else {
            throw CLIError.usage("that is more than 10,000 buckets; use a coarser --by", command: "report")
        }
        var formats: [OptionSpec] = []
        for format in [csv, SharedOptions.json, svg, ReportFlags.html] where try context.has(format) {
            formats.append(format)
        }
        guard formats.count <= 1 else {
            throw CLIError.usage("choose one of --csv, --json, --svg and --html", command: "report")
        }
        let options = try ReportFlags.options(context, kind: kind)
        let ledger = try Commands.openReader(context)
        defer { ledger.close() }
        let table: ReportTable
        do {
            table = try ledger.report(kind, period: period, options: options)
        } catch {
            if error.code == .missingRate, let file = try context.value(ReportFlags.rates) {
                throw CLIError.failure("--rates \(file): \(error.message)")
            }
            throw Commands.failure(error)
        }
        switch formats.first {
        case csv: Terminal.out(table.csv)
        case SharedOptions.json: context.printJSON(table.json)
        case svg: Terminal.out(table.svg())
        case ReportFlags.html: Terminal.out(table.html())
        default:
            let environment = ledger.environment?.rawValue ?? "empty ledger"
            Terminal.line("\(table.title), \(environment), \(from.iso8601) – \(to.iso8601)")
            for note in table.notes { Terminal.line("  " + note) }
            Terminal.out(table.text)
        }
        return 0
    }
}
