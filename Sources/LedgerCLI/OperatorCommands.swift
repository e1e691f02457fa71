import LedgerCore
import LedgerJSON
import LedgerService
import LedgerStore

/// `ledger link`, `ledger correct` and `ledger void`: operator records, appended, never rewriting history.
enum OperatorCommands {
    static func operatorFields(_ context: CommandContext) throws(CLIError) -> (reason: String, name: String) {
        let reason = try context.required("--reason")
        let name = try context.required("--operator")
        guard reason.utf8.count <= 2000, name.utf8.count <= 200 else {
            throw CLIError.usage(
                "--reason is limited to 2000 bytes and --operator to 200", command: context.arguments.command)
        }
        return (reason, name)
    }

    static func link(_ context: CommandContext) throws(CLIError) -> Int32 {
        let otid = try context.required("--original-transaction-id")
        var owner: SubjectQuery?
        if let user = try context.integer("--user", in: 0...Int64(UInt32.max)) { owner = .user(user) }
        if let token = context.arguments.value("--account-token") {
            guard owner == nil, let canonical = AccountToken.canonical(token) else {
                throw CLIError.usage("name one owner: --user N or --account-token UUID", command: "link")
            }
            owner = .account(canonical)
        }
        guard let owner else {
            throw CLIError.usage("name the owner: --user N or --account-token UUID", command: "link")
        }
        let (reason, name) = try operatorFields(context)
        let ledger = try Commands.openWriter(context, environment: nil)
        defer { ledger.close() }
        do {
            let outcome = try ledger.link(
                originalTransactionId: otid, to: owner, reason: reason, operatorName: name,
                reassign: context.arguments.has("--reassign"))
            let effect = try ledger.linkEffect(originalTransactionId: otid, owner: owner)
            report(outcome, context, link: effect)
            if effect.known, !effect.linked {
                Terminal.err(
                    "warning: subscription \(otid) is owned by \(Self.describe(effect.owner)) through the appAccountToken"
                        + " on its transactions, which decides over links: this link changes nothing while they carry"
                        + " it\n")
            }
        } catch {
            throw Commands.failure(error)
        }
        return 0
    }

    /// `ledger void --seq N --reason TEXT --operator NAME`: appends a void of record N (see `ledger help void`).
    static func void(_ context: CommandContext) throws(CLIError) -> Int32 {
        guard context.arguments.value("--seq") != nil else {
            throw CLIError.usage("missing --seq N (the record to void)", command: "void")
        }
        let seq = try context.integer("--seq", in: 0...Int64.max) ?? 0
        let (reason, name) = try operatorFields(context)
        let ledger = try Commands.openWriter(context, environment: nil)
        defer { ledger.close() }
        do {
            let outcome = try ledger.void(seq: UInt64(seq), reason: reason, operatorName: name)
            if !context.json, case .duplicate(let void) = outcome {
                Terminal.line("record \(seq) was already voided by record \(void); nothing appended")
            } else {
                report(outcome, context)
            }
        } catch {
            throw Commands.failure(error)
        }
        return 0
    }

    static func describe(_ owner: Subject) -> String {
        if let user = owner.userId { return "user \(user)" }
        return owner.appAccountToken.map { "account \($0)" } ?? "nobody"
    }

    static func correct(_ context: CommandContext) throws(CLIError) -> Int32 {
        let query = try context.subject()
        guard let from = try context.instant("--from") else {
            throw CLIError.usage("missing --from T", command: "correct")
        }
        let action: Correction.Action
        switch (context.arguments.value("--grant"), context.arguments.has("--revoke")) {
        case (let product?, false):
            guard let until = try context.instant("--until"), until > from else {
                throw CLIError.usage("--grant needs --until T after --from", command: "correct")
            }
            guard context.catalog.product(id: product) != nil else {
                // Checked here, before the data directory is opened: the grant would give no devices.
                let hint =
                    product.utf8.count > 256
                    ? nil : Suggestion.closest(to: product, among: context.catalog.products.map(\.id))
                throw CLIError.usage(
                    "--grant '\(product.prefix(256))' is not a product of the catalog"
                        + (hint.map { " (did you mean '\($0)'?)" } ?? "")
                        + "; 'ledger catalog' lists them (--catalog FILE loads another catalog)",
                    command: "correct")
            }
            action = .grant(productId: product, from: from, until: until)
        case (nil, true):
            guard !context.arguments.has("--until") else {
                throw CLIError.usage("--revoke ends at --from and takes no --until", command: "correct")
            }
            action = .revoke(from: from)
        default:
            throw CLIError.usage(
                "give either --grant PRODUCT --from T --until T or --revoke --from T", command: "correct")
        }
        let (reason, name) = try operatorFields(context)
        let ledger = try Commands.openWriter(context, environment: nil)
        defer { ledger.close() }
        do {
            report(try ledger.correct(query, action: action, reason: reason, operatorName: name), context)
        } catch {
            throw Commands.failure(error)
        }
        return 0
    }

    /// Prints what an operator command appended; a link's report also names the subscription's owner now and
    /// whether that is the owner the link names.
    static func report(_ outcome: AppendOutcome, _ context: CommandContext, link: LinkEffect? = nil) {
        if context.json {
            context.printJSON(.object(outcome.answer(link: link)))
        } else if case .appended(let seq, _) = outcome {
            Terminal.line("appended as record \(seq)")
        } else {
            Terminal.line("already recorded as record \(outcome.seq); nothing appended")
        }
    }
}
