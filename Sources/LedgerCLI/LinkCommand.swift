import LedgerCore
import LedgerJSON
import LedgerService
import LedgerStore

/// `ledger link`: attaches an orphan subscription to a user or account (appends a link record).
enum LinkCommand: LedgerCommand {
    /// `--reassign`.
    static let reassign = OptionSpec(
        "--reassign", "Move a subscription another user or account owns (the record names them).")

    static let spec = CommandSpec(
        name: "link", summary: "Attach an orphan subscription to a user (appends a link record).",
        usage: [
            "link --original-transaction-id ID (--user N | --account-token UUID) [--reassign] --reason TEXT "
                + "--operator NAME"
        ],
        discussion: """
            Refuses (exit 1, nothing appended) a subscription the ledger has no record of, and one owned by \
            another user or account unless --reassign says the move is meant; a reassigning link names the \
            previous owner.
            """,
        options: [SharedOptions.data, SharedOptions.store] + SharedOptions.subject + [reassign]
            + SharedOptions.operatorFields + [SharedOptions.json])

    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let otid = try context.required(SharedOptions.originalTransactionId)
        var owner: SubjectQuery?
        if let user = try context.integer(SharedOptions.user, in: 0...Int64(UInt32.max)) { owner = .user(user) }
        if let token = try context.value(SharedOptions.accountToken) {
            guard owner == nil, let canonical = AccountToken.canonical(token) else {
                throw CLIError.usage("name one owner: --user N or --account-token UUID", command: "link")
            }
            owner = .account(canonical)
        }
        guard let owner else {
            throw CLIError.usage("name the owner: --user N or --account-token UUID", command: "link")
        }
        let (reason, name) = try OperatorCommands.operatorFields(context)
        let reassign = try context.has(Self.reassign)
        let ledger = try Commands.openWriter(context, environment: nil)
        defer { ledger.close() }
        do {
            let outcome = try ledger.link(
                originalTransactionId: otid, to: owner, reason: reason, operatorName: name,
                reassign: reassign)
            let effect = try ledger.linkEffect(originalTransactionId: otid, owner: owner)
            OperatorCommands.report(outcome, context, link: effect)
            if effect.known, !effect.linked {
                Terminal.err(
                    "warning: subscription \(otid) is owned by \(OperatorCommands.describe(effect.owner)) through the appAccountToken"
                        + " on its transactions, which decides over links: this link changes nothing while they carry"
                        + " it\n")
            }
        } catch {
            throw Commands.failure(error)
        }
        return 0
    }
}
