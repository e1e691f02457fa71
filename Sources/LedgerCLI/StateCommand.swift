import LedgerCore
import LedgerJSON
import LedgerService
import LedgerSystem

/// `ledger state`: a subject's entitlement at valid time T as known at K.
enum StateCommand {
    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let query = try context.subject()
        let at = try context.instant("--at") ?? Instant(milliseconds: SystemClock.wallMilliseconds())
        let knownAt = try context.instant("--known-at")
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
