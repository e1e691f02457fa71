import LedgerCore
import LedgerJSON
import LedgerService
import LedgerSystem

/// `ledger catalog set FILE --from T --reason R --operator O [--dry-run]`: appends a catalog version, or with
/// `--dry-run` lists the answers it would change and appends nothing.
enum CatalogSetCommand {
    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let positionals = context.arguments.positionals
        guard positionals.count == 2 else {
            throw CLIError.usage(
                "'catalog set' needs one FILE: ledger catalog set FILE --from T --reason R --operator O",
                command: "catalog")
        }
        if try context.has(CatalogCommand.at) {
            throw CLIError.usage("--at belongs to 'ledger catalog'; 'catalog set' takes --from T", command: "catalog")
        }
        guard let from = try context.instant(CatalogCommand.from) else {
            throw CLIError.usage("missing --from T (from when the new catalog is in force)", command: "catalog")
        }
        let (reason, name) = try OperatorCommands.operatorFields(context)
        let path = positionals[1]
        // A file that cannot be read or is refused is rejected input (exit 1), as for every command's FILE.
        let catalog = try CatalogFile.load(path: path)
        guard !catalog.products.isEmpty else { throw CLIError.failure("catalog \(path) lists no products") }
        let version = CatalogVersion(catalog: catalog, effectiveFrom: from, reason: reason, operatorName: name)
        if try context.has(CatalogCommand.dryRun) { return try dryRun(version, context) }
        let ledger = try Commands.openWriter(context, environment: nil)
        defer { ledger.close() }
        do {
            OperatorCommands.report(try ledger.setCatalog(version), context)
        } catch {
            throw Commands.failure(error)
        }
        return 0
    }

    /// Lists the answers `version` would change, now and at its effective time; appends nothing.
    static func dryRun(_ version: CatalogVersion, _ context: CommandContext) throws(CLIError) -> Int32 {
        let ledger = try Commands.openReader(context)
        defer { ledger.close() }
        let changes: [CatalogChange]
        do {
            changes = try ledger.catalogChanges(
                of: version, now: Instant(milliseconds: SystemClock.wallMilliseconds()))
        } catch {
            throw Commands.failure(error)
        }
        if context.json {
            context.printJSON(
                .object([
                    "dryRun": true, "appended": false, "effectiveFrom": .string(version.effectiveFrom.iso8601),
                    "products": .int(version.catalog.products.count), "changes": .array(changes.map(\.json)),
                ]))
            return 0
        }
        Terminal.line(
            "dry run, nothing appended: the catalog of \(version.catalog.products.count) products in force from "
                + "\(version.effectiveFrom.iso8601) would change "
                + (changes.isEmpty ? "no answer" : changes.count == 1 ? "1 answer" : "\(changes.count) answers"))
        for change in changes {
            let owner = OperatorCommands.describe(change.owner)
            Terminal.line(
                "  \(change.when) \(change.at.iso8601)  \(change.originalTransactionId)  \(owner): "
                    + "\(describe(change.before)) -> \(describe(change.after))")
        }
        return 0
    }

    private static func describe(_ state: SubscriptionState?) -> String {
        guard let state else { return "not started" }
        var text = "\(state.productId) \(state.status.rawValue) \(state.devices) devices"
        if let expires = state.expiresAt { text += " until \(expires.iso8601)" }
        return text
    }
}
