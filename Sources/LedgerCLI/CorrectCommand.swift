import LedgerCore
import LedgerService

/// `ledger correct`: an operator correction (a grant or a revocation), honoured from its effective time.
enum CorrectCommand: LedgerCommand {
    /// `--grant PRODUCT`.
    static let grant = OptionSpec(
        "--grant", value: "PRODUCT", "Grant this product's devices (a product of the catalog).")
    /// `--revoke`.
    static let revoke = OptionSpec("--revoke", "Revoke the subject's entitlement.")
    /// `--from T`.
    static let from = OptionSpec("--from", value: "T", "Effective from.")
    /// `--until T`.
    static let until = OptionSpec("--until", value: "T", "Grant until.")

    static let spec = CommandSpec(
        name: "correct", summary: "Append an operator correction honoured from its effective time.",
        usage: [
            "correct SUBJECT (--grant PRODUCT --from T --until T | --revoke --from T) --reason TEXT --operator NAME"
        ],
        options: [SharedOptions.data, SharedOptions.store] + SharedOptions.subject + [grant, revoke, from, until]
            + SharedOptions.operatorFields + [SharedOptions.json])

    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let query = try context.subject()
        guard let from = try context.instant(Self.from) else {
            throw CLIError.usage("missing --from T", command: "correct")
        }
        let action: Correction.Action
        switch (try context.value(Self.grant), try context.has(Self.revoke)) {
        case (let product?, false):
            guard let until = try context.instant(Self.until), until > from else {
                throw CLIError.usage("--grant needs --until T after --from", command: "correct")
            }
            // The catalog the log has in force at --from (the built-in one for a log that cannot be read yet).
            let catalog =
                (try? Commands.openReader(context)).map { ledger in
                    defer { ledger.close() }
                    return ledger.fold.catalogs.catalog(at: from)
                } ?? .visla
            guard catalog.product(id: product) != nil else {
                // Checked here, before the data directory is opened for writing: the grant would give no devices.
                let hint =
                    product.utf8.count > 256
                    ? nil : Suggestion.closest(to: product, among: catalog.products.map(\.id))
                throw CLIError.usage(
                    "--grant '\(product.prefix(256))' is not a product of the catalog"
                        + (hint.map { " (did you mean '\($0)'?)" } ?? "")
                        + "; 'ledger catalog --at T' lists them ('ledger catalog set' records another catalog)",
                    command: "correct")
            }
            action = .grant(productId: product, from: from, until: until)
        case (nil, true):
            guard try !context.has(Self.until) else {
                throw CLIError.usage("--revoke ends at --from and takes no --until", command: "correct")
            }
            action = .revoke(from: from)
        default:
            throw CLIError.usage(
                "give either --grant PRODUCT --from T --until T or --revoke --from T", command: "correct")
        }
        let (reason, name) = try OperatorCommands.operatorFields(context)
        let ledger = try Commands.openWriter(context, environment: nil)
        defer { ledger.close() }
        do {
            OperatorCommands.report(
                try ledger.correct(query, action: action, reason: reason, operatorName: name), context)
        } catch {
            throw Commands.failure(error)
        }
        return 0
    }
}
