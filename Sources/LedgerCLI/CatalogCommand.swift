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
            periods that start from its --from on. The text form names the record the version comes from; --json \
            prints its products. 'catalog set' reads FILE in the shape 'catalog --json' prints \
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
        let when = instant ?? Instant(milliseconds: SystemClock.wallMilliseconds())
        let entry = try versionInForce(context, at: when)
        let catalog = entry?.version.catalog ?? .visla
        if context.json {
            // The products alone, as `ledger catalog --json` always printed them; the text form says where they
            // come from.
            context.printJSON(.array(catalog.products.map(\.json)))
            return 0
        }
        Terminal.line(describe(entry, at: when))
        printTable(catalog)
        return 0
    }

    /// The log's catalog version in force at `when`; nil for the built-in catalog, which is in force where no
    /// version is, and on a data directory that does not exist yet (a ledger with no records).
    private static func versionInForce(_ context: CommandContext, at when: Instant) throws(CLIError)
        -> CatalogHistory.Entry?
    {
        if try Commands.postgresURL(context) == nil,
            (try? PosixFileSystem().stat(context.dataDirectory)) ?? nil == nil
        {
            return nil
        }
        let ledger = try Commands.openReader(context)
        defer { ledger.close() }
        do {
            return try ledger.readCatalogHistory().entry(at: when)
        } catch {
            throw Commands.failure(error)
        }
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
