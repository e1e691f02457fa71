import LedgerAppStore
import LedgerAppStoreAPI
import LedgerCore
import LedgerJSON
import LedgerService
import LedgerSystem

/// `ledger reconcile --from-api`: pulls the window's notification history from the App Store Server API, then
/// the transaction history of every subscription it touches, and appends only the facts the log lacks.
enum ReconcileFromAPICommand {
    /// Runs `ledger reconcile --from-api` (see ``ReconcileCommand``, which holds its spec).
    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let command = context.arguments.command
        guard context.arguments.positionals.isEmpty else {
            throw CLIError.usage("--from-api reads from Apple, not from FILE; give one or the other", command: command)
        }
        guard let since = try context.instant(ReconcileCommand.since) else {
            throw CLIError.usage("--from-api needs --since T: the start of the window to pull", command: command)
        }
        let now = SystemClock.wallMilliseconds()
        let until = try context.instant(ReconcileCommand.until)?.milliseconds ?? now
        guard since.milliseconds < until else {
            throw CLIError.usage("--since must be before --until (or before now)", command: command)
        }
        let verifier = try VerifySettings.verifier(context, bound: BoundIdentity.of(context), writes: true)
        let client = try APIClientSettings.client(context, configuration: verifier.configuration)
        let request = NotificationHistoryRequest(
            startDate: since.milliseconds, endDate: until,
            onlyFailures: try context.has(ReconcileCommand.onlyFailures) ? true : nil)
        Terminal.err(
            "reconcile: notification history \(Instant(milliseconds: since.milliseconds)) to \(Instant(milliseconds: until)) from \(client.baseURL)\n"
        )
        let pull = APIPull(client: client, verifier: verifier) { Terminal.err($0 + "\n") }
        // Everything is fetched, then verified, before anything is appended: a pull is appended whole or not at all.
        let fetched = try pull.fetch(request)
        let ledger = try Commands.openWriter(
            context, environment: verifier.configuration.environment, app: VerifySettings.app(verifier))
        defer { ledger.close() }
        let counts: ReconcileCounts
        do {
            counts = try pull.apply(fetched, to: ledger, quarantine: Quarantine(dataDirectory: context.dataDirectory))
        } catch {
            throw Commands.failure(error)
        }
        print(counts)
        guard counts.rejected == 0 else {
            Terminal.err(
                "error: \(counts.rejected) rejected; nothing of the pull was appended; see 'ledger quarantine --data "
                    + "\(context.dataDirectory)'\n")
            return 1
        }
        return 0
    }

    static func print(_ counts: ReconcileCounts) {
        let summary: JSONValue = .object([
            "appended": .int(counts.appended), "alreadyKnown": .int(counts.alreadyKnown),
            "rejected": .int(counts.rejected),
        ])
        Terminal.line(summary.serialized())
    }
}
