import LedgerAppStore
import LedgerCore
import LedgerJSON
import LedgerService
import LedgerSystem

/// `ledger reconcile`: App Store Server API or verifyReceipt responses → only the facts the log lacks.
enum ReconcileCommand: LedgerCommand {
    /// `--from-api`.
    static let fromAPI = OptionSpec("--from-api", "Pull from the App Store Server API instead of reading FILE.")
    /// `--since T`.
    static let since = OptionSpec("--since", value: "T", "With --from-api: the window's start.")
    /// `--until T`.
    static let until = OptionSpec("--until", value: "T", "With --from-api: the window's end (default: now).")
    /// `--only-failures`.
    static let onlyFailures = OptionSpec(
        "--only-failures", "With --from-api: only notifications Apple failed to deliver.")

    static let spec = CommandSpec(
        name: "reconcile",
        summary: "Import App Store Server API or verifyReceipt responses: only new facts.",
        usage: [
            "reconcile [VERIFY FLAGS] [--data DIR | --store URL] [--json] FILE",
            "reconcile --from-api --since T [--until T] --key-file F --key-id K --issuer-id I [--api-base-url URL] "
                + "[--api-ca-file F] [VERIFY FLAGS] [--data DIR | --store URL]",
        ],
        discussion: """
            FILE holds App Store Server API responses (transaction history, subscription statuses) or legacy \
            verifyReceipt responses. With --from-api the ledger fetches them itself: Get Notification History \
            for the window (every page; windows over 180 days split), each notification verified exactly as \
            the webhook verifies it, then Get Transaction History for every subscription the window touched. \
            Only facts the log lacks are appended. Prints {"appended":N,"alreadyKnown":N,"rejected":N}; exit 0 \
            when nothing was rejected, else 1 (a refused item is named with Apple's status, and nothing of its \
            input is appended). 5xx and 429 answers are retried with backoff (honouring Retry-After); a 401 \
            renews the token once.
            """,
        options: SharedOptions.verify + [
            SharedOptions.data, SharedOptions.store, SharedOptions.json, fromAPI, since, until,
            onlyFailures,
        ] + SharedOptions.apiClient, positionals: 0...1, positionalName: "FILE")

    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        if try context.has(fromAPI) { return try ReconcileFromAPICommand.run(context) }
        guard !context.arguments.positionals.isEmpty else {
            throw CLIError.usage("missing FILE (or --from-api --since T to pull from Apple)", command: "reconcile")
        }
        let directory = context.dataDirectory
        let verifier = try VerifySettings.verifier(context, bound: BoundIdentity.of(context), writes: true)
        let bytes = try InputFile.read(context.arguments.positionals[0], limit: 1 << 30)
        let documents: [ReconcileDocument]
        do {
            documents = try ReconcileDocument.parseAll(bytes)
        } catch {
            throw CLIError.failure("\(context.arguments.positionals[0]): \(error.description)")
        }
        for (index, document) in documents.enumerated() {
            guard case .refused(_, let reason) = document else { continue }
            let place = documents.count > 1 ? " document \(index + 1)" : ""
            Terminal.err("error: \(context.arguments.positionals[0])\(place): \(reason.description)\n")
        }
        if let last = documents.last(where: \.isTransactionHistory), case .transactionHistory(let page) = last,
            page.hasMore == true
        {
            let next = page.revision.map { " with revision \($0)" } ?? ""
            Terminal.err(
                "warning: the file's last history page says hasMore: Apple holds more; fetch the next page\(next) "
                    + "and reconcile it too\n")
        }
        let ledger = try Commands.openWriter(
            context, environment: verifier.configuration.environment, app: VerifySettings.app(verifier))
        defer { ledger.close() }
        let counts: ReconcileCounts
        do {
            counts = try ledger.reconcile(
                documents, verifier: verifier, quarantine: Quarantine(dataDirectory: directory),
                now: Instant(milliseconds: SystemClock.wallMilliseconds()))
        } catch {
            throw Commands.failure(error)
        }
        let summary: JSONValue = .object([
            "appended": .int(counts.appended), "alreadyKnown": .int(counts.alreadyKnown),
            "rejected": .int(counts.rejected),
        ])
        Terminal.line(summary.serialized())
        let input = context.arguments.positionals[0]
        for refusal in counts.refusals {
            let place = documents.count > 1 ? " document \(refusal.document + 1)" : ""
            Terminal.err("error: \(input)\(place): \(refusal)\n")
        }
        guard counts.rejected > 0 else { return 0 }
        Terminal.err(
            "error: \(counts.rejected) rejected; nothing of \(input) was appended (an input is imported whole or not "
                + "at all); see 'ledger quarantine --data \(directory)'\n")
        return 1
    }
}
