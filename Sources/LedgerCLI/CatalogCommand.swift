import LedgerCore
import LedgerJSON
import LedgerService
import LedgerSystem

/// `ledger catalog`: the catalog version in force (now, or at `--at T`) and the record it comes from;
/// `ledger catalog set FILE …` records a new version (see `CatalogSetCommand.swift`).
enum CatalogCommand: LedgerCommand {
    /// `--at T`.
    static let at = OptionSpec("--at", value: "T", "The version in force at T (default: now).")
    /// `--from T` of `catalog set`.
    static let from = OptionSpec("--from", value: "T", "catalog set: the new version is in force from T.")
    /// `--dry-run` of `catalog set`.
    static let dryRun = OptionSpec(
        "--dry-run", "catalog set: append nothing; list the answers the version would change.")

    static let spec = CommandSpec(
        name: "catalog", summary: "The product catalog in force, from the log; 'catalog set' records a new version.",
        usage: [
            "catalog [--at T] [--data DIR | --store URL] [--json]",
            "catalog set FILE --from T --reason TEXT --operator NAME [--dry-run] [--data DIR | --store URL] [--json]",
        ],
        discussion: """
            The catalog (products, kinds, periods, devices, prices) comes from the log alone: each version is a \
            record ('catalog set'); a log without a catalog record reads with the built-in 30 products, the \
            catalog in force from the beginning of time. Each period (a transaction's purchase to expiry, a pass, \
            a grant) takes the version in force at its start, so a version recorded later changes only the \
            periods that start from its --from on. 'catalog set' reads FILE in the shape 'catalog --json' prints \
            (or its products array); --dry-run lists the subscriptions whose devices, status or expiry would \
            differ, now and at --from, and appends nothing. Bad input is a usage error (exit 64), nothing appended.
            """,
        options: [
            SharedOptions.data, SharedOptions.store, at, from, dryRun, SharedOptions.json,
        ] + SharedOptions.operatorFields,
        positionals: 0...2, positionalName: "set FILE")

    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let positionals = context.arguments.positionals
        if let first = positionals.first {
            guard first == "set" else {
                throw CLIError.usage(
                    "unknown 'catalog' subcommand '\(first.prefix(64))': use 'ledger catalog' or 'ledger catalog set "
                        + "FILE --from T --reason R --operator O'", command: "catalog")
            }
            return try CatalogSetCommand.run(context)
        }
        for option in [from, dryRun, SharedOptions.reason, SharedOptions.operatorName] where try context.has(option) {
            throw CLIError.usage("\(option.name) belongs to 'ledger catalog set FILE'", command: "catalog")
        }
        let instant = try context.instant(at)
        let ledger = try Commands.openReader(context)
        defer { ledger.close() }
        let history: CatalogHistory
        do {
            history = try ledger.readCatalogHistory()
        } catch {
            throw Commands.failure(error)
        }
        let when = instant ?? Instant(milliseconds: SystemClock.wallMilliseconds())
        let entry = history.entry(at: when)
        let catalog = entry?.version.catalog ?? .visla
        if context.json {
            var object: JSONObject = [
                "at": .string(when.iso8601), "products": .array(catalog.products.map(\.json)),
                "source": .string(entry == nil ? "built-in" : "log"),
            ]
            object["seq"] = entry.map { .integer(Int64(clamping: $0.seq)) } ?? .null
            object["effectiveFrom"] = entry.flatMap(effectiveJSON) ?? .null
            object["recordedAt"] = entry.map { .string($0.recordedAt.iso8601) } ?? .null
            object["reason"] = entry.map { .string($0.version.reason) } ?? .null
            object["operator"] = entry.map { .string($0.version.operatorName) } ?? .null
            context.printJSON(.object(object))
            return 0
        }
        Terminal.line(describe(entry, at: when))
        printTable(catalog)
        return 0
    }

    /// Where the version in force comes from, in a line.
    static func describe(_ entry: CatalogHistory.Entry?, at: Instant) -> String {
        guard let entry else {
            return "catalog in force at \(at.iso8601): the built-in catalog (no catalog version of the log is in "
                + "force then; the built-in one is, from the beginning of time)"
        }
        let from =
            entry.version.effectiveFrom == .distantPast
            ? "from the beginning of time" : "from \(entry.version.effectiveFrom.iso8601)"
        return "catalog in force at \(at.iso8601): record \(entry.seq) (\(from); \"\(entry.version.reason)\" by "
            + "\(entry.version.operatorName), recorded \(entry.recordedAt.iso8601))"
    }

    private static func effectiveJSON(_ entry: CatalogHistory.Entry) -> JSONValue? {
        entry.version.effectiveFrom == .distantPast ? nil : .string(entry.version.effectiveFrom.iso8601)
    }

    /// The products as a table.
    static func printTable(_ catalog: Catalog) {
        Terminal.line("PRODUCT                           KIND           PERIOD       DEVICES   PRICE      SOURCE")
        for product in catalog.products {
            Terminal.line(
                product.id.padding(to: 34) + product.kind.rawValue.padding(to: 15)
                    + product.period.name.padding(to: 13) + String(product.devices).padding(to: 10)
                    + (product.price.currency + " " + product.price.decimalString).padding(to: 11)
                    + product.priceSource.rawValue)
        }
    }
}
