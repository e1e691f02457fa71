import LedgerCore
import LedgerJSON
import LedgerService
import LedgerSystem

/// `ledger state`: a subject's entitlement at valid time T as known at K.
enum StateCommand: LedgerCommand {
    /// `--at T`.
    static let at = OptionSpec("--at", value: "T", "Valid time (default: now).")
    /// `--known-at K`.
    static let knownAt = OptionSpec("--known-at", value: "K", "Only records appended by K (default: all).")

    static let spec = CommandSpec(
        name: "state", summary: "A subject's entitlement at valid time T as known at K.",
        usage: [
            "state [--data DIR | --store URL] (--user ID | --account-token UUID | --original-transaction-id ID)"
                + " [--at T] [--known-at K] [--json]"
        ],
        discussion: "An unknown subject is not an error. " + SharedOptions.timeHelp,
        options: [SharedOptions.data, SharedOptions.store] + SharedOptions.subject + [
            at, knownAt, SharedOptions.json,
        ])

    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let query = try context.subject()
        let at = try context.instant(Self.at) ?? Instant(milliseconds: SystemClock.wallMilliseconds())
        let knownAt = try context.instant(Self.knownAt)
        let ledger = try Commands.openReader(context)
        defer { ledger.close() }
        let state: EntitlementState
        do {
            state = try ledger.state(of: query, at: at, knownAt: knownAt)
        } catch {
            throw Commands.failure(error)
        }
        if context.json {
            context.printJSON(state.json)
            return 0
        }
        let who = state.userId.map { "user \($0)" } ?? state.appAccountToken.map { "account \($0)" } ?? "\(query)"
        Terminal.line("\(who) at \(at.iso8601)" + (knownAt.map { " as known at \($0.iso8601)" } ?? ""))
        Terminal.line("status \(state.status.rawValue), device limit \(state.deviceLimit)")
        for subscription in state.subscriptions {
            var line =
                "  \(subscription.originalTransactionId)  \(subscription.productId)  \(subscription.status.rawValue)"
            line += "  \(subscription.devices) devices"
            if let expires = subscription.expiresAt { line += "  until \(expires.iso8601)" }
            if let pending = subscription.pendingProductId { line += "  (renews as \(pending))" }
            Terminal.line(line)
        }
        return 0
    }
}
