import LedgerCore
import LedgerJSON
import LedgerService
import LedgerStore

/// What `ledger link`, `ledger correct` and `ledger void` share: operator records, appended, never rewriting
/// history.
enum OperatorCommands {
    /// `--reason TEXT` and `--operator NAME`, checked against their limits.
    static func operatorFields(_ context: CommandContext) throws(CLIError) -> (reason: String, name: String) {
        let reason = try context.required(SharedOptions.reason)
        let name = try context.required(SharedOptions.operatorName)
        if let problem = OperatorNote.problem(reason: reason, operatorName: name, names: ("--reason", "--operator")) {
            throw CLIError.usage(problem, command: context.arguments.command)
        }
        return (reason, name)
    }

    /// The owner of a subscription, for messages.
    static func describe(_ owner: Subject) -> String {
        if let user = owner.userId { return "user \(user)" }
        return owner.appAccountToken.map { "account \($0)" } ?? "nobody"
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
