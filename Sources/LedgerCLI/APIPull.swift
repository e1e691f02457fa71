import LedgerAppStore
import LedgerAppStoreAPI
import LedgerCore
import LedgerJSON
import LedgerService
import LedgerSystem

/// One pull from the App Store Server API into a ledger, in two steps a scheduled pull can reuse: ``fetch(_:)``
/// talks to Apple and touches no ledger; ``apply(_:to:quarantine:)`` verifies everything fetched and appends it
/// whole or not at all, and talks to no one.
struct APIPull: Sendable {
    /// What one pull fetched: the window's notifications, and the transaction history of the subscriptions they
    /// touch.
    struct Fetched {
        var notifications: [NotificationHistoryPage.Item] = []
        var histories: [ReconcileDocument] = []
        /// Subscriptions Apple had no transaction history for (404), or refused one for (another 4xx).
        var skipped = 0
        var subscriptions = 0
    }

    let client: AppStoreServerAPIClient
    let verifier: SignedDataVerifier
    /// Where the pull's error and warning lines go (standard error for the CLI).
    let report: @Sendable (String) -> Void

    /// Fetches the window's notification history (every page of every window), then each touched subscription's
    /// transaction history. A 4xx for one subscription (Apple knows no such transaction) skips it with a warning;
    /// any other failure ends the pull with nothing appended.
    func fetch(_ request: NotificationHistoryRequest) throws(CLIError) -> Fetched {
        var fetched = Fetched()
        do {
            fetched.notifications = try client.notificationHistory(request)
        } catch {
            throw CLIError(
                .failure, "Get Notification History failed: \(error.message); nothing was appended",
                cause: Self.metricCode(error))
        }
        var seen = Set<String>()
        for otid in fetched.notifications.compactMap({ NotificationFacts($0.signedPayload).originalTransactionId })
        where seen.insert(otid).inserted {
            do {
                fetched.histories += try client.transactionHistory(transactionId: otid).map { .transactionHistory($0) }
            } catch {
                guard error.code == .apiError, let status = error.httpStatus, (400..<500).contains(status),
                    status != 401, status != 429
                else {
                    throw CLIError(
                        .failure,
                        "Get Transaction History for \(otid) failed: \(error.message); nothing was appended (run "
                            + "the same command again)", cause: Self.metricCode(error))
                }
                fetched.skipped += 1
                if status != 404 { report("warning: Get Transaction History for \(otid): \(error.message)") }
            }
        }
        fetched.subscriptions = seen.count
        if fetched.skipped > 0 {
            report("warning: no transaction history for \(fetched.skipped) of \(seen.count) subscriptions")
        }
        return fetched
    }

    /// A failure's label for metrics: Apple's `errorCode`, else `http_<status>`, else the error's code.
    static func metricCode(_ error: AppStoreAPIError) -> String {
        if let code = error.errorCode { return String(code) }
        if let status = error.httpStatus { return "http_\(status)" }
        return error.code.description
    }

    /// Verifies every notification exactly as the webhook does and every history page under the reconcile rules,
    /// then appends the facts the ledger lacks; when anything is refused (quarantined, and named through
    /// ``report``), nothing is appended and the counts say how many were.
    func apply(_ fetched: Fetched, to ledger: Ledger, quarantine: Quarantine) throws(ServiceError) -> ReconcileCounts {
        let pipeline = IngestPipeline(ledger: ledger, verifier: verifier, quarantine: quarantine)
        let items = fetched.notifications
        let prepared = try pipeline.prepareReconcile(bodies: items.map { NotificationBody.of($0.signedPayload) })
        for refusal in prepared.counts.refusals {
            let uuid = NotificationFacts(items[refusal.document].signedPayload).uuid.map { " (\($0))" } ?? ""
            report(
                "error: notification history item \(refusal.document + 1)\(uuid): \(refusal.status): "
                    + refusal.message)
        }
        guard prepared.counts.rejected == 0 else { return prepared.counts }
        // Transactions a notification of the pull carries are counted once, through the notification.
        let counted = Set(items.compactMap { NotificationFacts($0.signedPayload).transactionId })
        let now = Instant(milliseconds: SystemClock.wallMilliseconds())
        if !fetched.histories.isEmpty {
            let check = try ledger.reconcile(
                fetched.histories, verifier: verifier, quarantine: quarantine, now: now, uncounted: counted,
                dryRun: true)
            for refusal in check.refusals {
                report("error: transaction history page \(refusal.document + 1): \(refusal)")
            }
            if check.rejected > 0 {
                var counts = prepared.counts
                counts.rejected += check.rejected
                return counts
            }
        }
        var counts = try pipeline.commit(prepared)
        if !fetched.histories.isEmpty {
            let history = try ledger.reconcile(
                fetched.histories, verifier: verifier, quarantine: quarantine, now: now, uncounted: counted)
            counts.appended += history.appended
            counts.alreadyKnown += history.alreadyKnown
            counts.rejected += history.rejected
        }
        return counts
    }
}

/// A webhook request body for a signed payload, exactly as Apple would POST it.
enum NotificationBody {
    static func of(_ signedPayload: String) -> [UInt8] {
        JSONValue.object(["signedPayload": .string(signedPayload)]).serializedBytes()
    }
}

/// The identifiers of a history notification, read without verification: for messages and for choosing which
/// subscriptions' transaction history to fetch (nothing is appended before all of it is verified).
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
