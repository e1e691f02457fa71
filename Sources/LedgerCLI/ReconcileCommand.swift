import LedgerAppStore
import LedgerCore
import LedgerJSON
import LedgerLog
import LedgerService

/// `ledger reconcile`: App Store Server API or verifyReceipt responses → only the facts the log lacks.
enum ReconcileCommand {
    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let directory = context.dataDirectory
        let bound = Commands.boundEnvironment(context)
        let verifier = try VerifySettings.verifier(context, boundEnvironment: bound ?? nil)
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
        let ledger = try Commands.openWriter(context, environment: verifier.configuration.environment)
        defer { ledger.log.close() }
        let counts: ReconcileCounts
        do {
            counts = try ledger.reconcile(
                documents, verifier: verifier, quarantine: Quarantine(dataDirectory: directory),
                now: Instant(milliseconds: wallClockMillis()))
        } catch {
            throw Commands.failure(error)
        }
        let summary: JSONValue = .object([
            "appended": .int(counts.appended), "alreadyKnown": .int(counts.alreadyKnown),
            "rejected": .int(counts.rejected),
        ])
        Terminal.line(summary.serialized())
        return Commands.rejectedStatus(counts.rejected, context)
    }
}
