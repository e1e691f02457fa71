import LedgerAppStore
import LedgerCore
import LedgerJSON
import LedgerService
import LedgerSystem

/// `ledger reconcile`: App Store Server API or verifyReceipt responses → only the facts the log lacks.
enum ReconcileCommand {
    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        if context.arguments.has("--from-api") { return try ReconcileFromAPICommand.run(context) }
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
