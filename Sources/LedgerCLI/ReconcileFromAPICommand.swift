import LedgerAppStore
import LedgerAppStoreAPI
import LedgerCore
import LedgerJSON
import LedgerService
import LedgerSystem

/// `ledger reconcile --from-api`: pulls the window's notification history from the App Store Server API, then
/// the transaction history of every subscription it touches, and appends only the facts the log lacks.
enum ReconcileFromAPICommand {
    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let command = context.arguments.command
        guard context.arguments.positionals.isEmpty else {
            throw CLIError.usage("--from-api reads from Apple, not from FILE; give one or the other", command: command)
        }
        guard let since = try context.instant("--since") else {
            throw CLIError.usage("--from-api needs --since T: the start of the window to pull", command: command)
        }
        let now = SystemClock.wallMilliseconds()
        let until = try context.instant("--until")?.milliseconds ?? now
        guard since.milliseconds < until else {
            throw CLIError.usage("--since must be before --until (or before now)", command: command)
        }
        let verifier = try VerifySettings.verifier(context, bound: BoundIdentity.of(context), writes: true)
        let client = try APIClientSettings.client(context, verifier: verifier)
        let request = NotificationHistoryRequest(
            startDate: since.milliseconds, endDate: until,
            onlyFailures: context.arguments.has("--only-failures") ? true : nil)
        Terminal.err(
            "reconcile: notification history \(Instant(milliseconds: since.milliseconds)) to \(Instant(milliseconds: until)) from \(client.baseURL)\n"
        )
        let items: [NotificationHistoryPage.Item]
        do {
            items = try client.notificationHistory(request)
        } catch {
            throw CLIError.failure("Get Notification History failed: \(error.message); nothing was appended")
        }
        let ledger = try Commands.openWriter(
            context, environment: verifier.configuration.environment, app: VerifySettings.app(verifier))
        defer { ledger.close() }
        let quarantine = Quarantine(dataDirectory: context.dataDirectory)
        let pipeline = IngestPipeline(ledger: ledger, verifier: verifier, quarantine: quarantine)
        // Everything is fetched and verified before anything is appended: a pull is appended whole or not at all.
        let prepared: PreparedReconcile
        do {
            prepared = try pipeline.prepareReconcile(bodies: items.map { NotificationBody.of($0.signedPayload) })
        } catch {
            throw Commands.failure(error)
        }
        for refusal in prepared.counts.refusals {
            let uuid = NotificationFacts(items[refusal.document].signedPayload).uuid.map { " (\($0))" } ?? ""
            Terminal.err(
                "error: notification history item \(refusal.document + 1)\(uuid): \(refusal.status): "
                    + "\(refusal.message)\n")
        }
        guard prepared.counts.rejected == 0 else { return refused(prepared.counts, context) }
        // Then each subscription the window touched: its transaction history fills in what no notification said.
        let facts = items.map { NotificationFacts($0.signedPayload) }
        let transactionIds = Set(facts.compactMap(\.transactionId))
        let documents = try transactionHistory(client, subscriptions: facts.compactMap(\.originalTransactionId))
        let appendedAt = Instant(milliseconds: SystemClock.wallMilliseconds())
        do throws(ServiceError) {
            if !documents.isEmpty {
                let check = try ledger.reconcile(
                    documents, verifier: verifier, quarantine: quarantine, now: appendedAt, uncounted: transactionIds,
                    dryRun: true)
                for refusal in check.refusals {
                    Terminal.err("error: transaction history page \(refusal.document + 1): \(refusal)\n")
                }
                if check.rejected > 0 {
                    var counts = prepared.counts
                    counts.rejected += check.rejected
                    return refused(counts, context)
                }
            }
            var counts = try pipeline.commit(prepared)
            if !documents.isEmpty {
                let history = try ledger.reconcile(
                    documents, verifier: verifier, quarantine: quarantine, now: appendedAt, uncounted: transactionIds)
                counts.appended += history.appended
                counts.alreadyKnown += history.alreadyKnown
                counts.rejected += history.rejected
            }
            print(counts)
            return counts.rejected == 0 ? 0 : refused(counts, context, printed: true)
        } catch {
            throw Commands.failure(error)
        }
    }

    /// Every page of Get Transaction History for each subscription, once each. A 4xx for one (Apple knows no
    /// such transaction) skips it with a warning; any other failure stops the pull before anything is appended.
    static func transactionHistory(_ client: AppStoreServerAPIClient, subscriptions: [String]) throws(CLIError)
        -> [ReconcileDocument]
    {
        var documents: [ReconcileDocument] = []
        var seen = Set<String>()
        var skipped = 0
        for otid in subscriptions where seen.insert(otid).inserted {
            do {
                documents += try client.transactionHistory(transactionId: otid).map { .transactionHistory($0) }
            } catch {
                guard error.code == .apiError, let status = error.httpStatus, (400..<500).contains(status),
                    status != 401, status != 429
                else {
                    throw CLIError.failure(
                        "Get Transaction History for \(otid) failed: \(error.message); nothing was appended (run "
                            + "the same command again)")
                }
                skipped += 1
                if status != 404 { Terminal.err("warning: Get Transaction History for \(otid): \(error.message)\n") }
            }
        }
        if skipped > 0 {
            Terminal.err("warning: no transaction history for \(skipped) of \(seen.count) subscriptions\n")
        }
        return documents
    }

    /// Prints the counts of a refused pull and says nothing was appended: exit 1.
    static func refused(_ counts: ReconcileCounts, _ context: CommandContext, printed: Bool = false) -> Int32 {
        if !printed { print(counts) }
        Terminal.err(
            "error: \(counts.rejected) rejected; nothing of the pull was appended; see 'ledger quarantine --data "
                + "\(context.dataDirectory)'\n")
        return 1
    }

    static func print(_ counts: ReconcileCounts) {
        let summary: JSONValue = .object([
            "appended": .int(counts.appended), "alreadyKnown": .int(counts.alreadyKnown),
            "rejected": .int(counts.rejected),
        ])
        Terminal.line(summary.serialized())
    }
}

/// A webhook request body for a signed payload, exactly as Apple would POST it.
enum NotificationBody {
    static func of(_ signedPayload: String) -> [UInt8] {
        JSONValue.object(["signedPayload": .string(signedPayload)]).serializedBytes()
    }
}

/// The identifiers of a history notification, read without verification: for messages and for choosing which
/// subscriptions' transaction history to fetch after the whole history was verified.
struct NotificationFacts {
    var uuid: String?
    var transactionId: String?
    var originalTransactionId: String?

    init(_ signedPayload: String) {
        guard let outer = try? CompactJWS(signedPayload) else { return }
        let payload = JSONValue.object(outer.payload)
        uuid = payload["notificationUUID"]?.string
        guard let signed = payload["data"]?["signedTransactionInfo"]?.string,
            let inner = try? CompactJWS(signed)
        else { return }
        let transaction = JSONValue.object(inner.payload)
        transactionId = transaction["transactionId"]?.string
        originalTransactionId = transaction["originalTransactionId"]?.string
    }
}
