import LedgerAppStore
import LedgerCore
import LedgerCrypto
import LedgerLog

extension IngestPipeline {
    /// Reconciles notification bodies fetched from Apple (Get Notification History), all or nothing: each is
    /// verified, decoded and mapped exactly as a webhook delivery is (``prepare(body:)``); when every one passes,
    /// those whose notificationUUID the log lacks are appended in one durable batch and the rest are counted
    /// `alreadyKnown`; when any is refused, the refused ones go to the quarantine with Apple's status name and
    /// nothing at all is appended. A refusal's ``ReconcileRefusal/document`` is the body's index.
    ///
    /// Throws only when the log or the quarantine cannot be written.
    public func reconcile(bodies: [[UInt8]]) throws(ServiceError) -> ReconcileCounts {
        var counts = ReconcileCounts()
        var news: [(entry: LogEntry, evidence: HashedBytes?)] = []
        var keys = Set<String>()
        let now = Instant(milliseconds: clock())
        for (index, body) in bodies.enumerated() {
            switch prepare(body: body) {
            case .rejected(let status, let message):
                try quarantine.keep(body: body, status: status.rawValue, message: message, at: now)
                counts.rejected += 1
                counts.refusals.append(ReconcileRefusal(document: index, status: status.rawValue, message: message))
            case .record(let entry, let evidence):
                if try ledger.seq(forIdempotencyKey: entry.idempotencyKey) != nil
                    || !keys.insert(entry.idempotencyKey).inserted
                {
                    // Best effort, as for a webhook's redelivery: a damaged evidence copy is written afresh.
                    _ = try? ledger.restoreEvidence(evidence)
                    counts.alreadyKnown += 1
                } else {
                    news.append((entry, evidence))
                }
            }
        }
        guard counts.rejected == 0, !news.isEmpty else { return counts }
        for outcome in try ledger.append(checked: news) {
            if case .appended = outcome { counts.appended += 1 } else { counts.alreadyKnown += 1 }
        }
        return counts
    }
}
