import LedgerAppStore
import LedgerCore
import LedgerCrypto
import LedgerStore

/// Notification bodies fetched from Apple (Get Notification History), verified and sorted, not yet appended.
public struct PreparedReconcile: Sendable {
    /// The counts so far: `alreadyKnown` and `rejected` are final, `appended` is 0 until ``IngestPipeline/commit(_:)``.
    public var counts = ReconcileCounts()
    /// The entries the log lacks, with their evidence.
    var news: [(entry: LogEntry, evidence: HashedBytes?)] = []

    /// How many entries a commit would append (fewer if another writer appends some first).
    public var pending: Int { news.count }
}

extension IngestPipeline {
    /// Verifies, decodes and maps notification bodies exactly as a webhook delivery is (``prepare(body:)``),
    /// without appending: those whose notificationUUID the log holds (or that repeat an earlier body) are counted
    /// `alreadyKnown`, the refused ones are quarantined with Apple's status name and counted `rejected` (a
    /// refusal's ``ReconcileRefusal/document`` is the body's index), and the rest wait for ``commit(_:)``.
    ///
    /// Throws only when the log or the quarantine cannot be read or written.
    public func prepareReconcile(bodies: [[UInt8]]) throws(ServiceError) -> PreparedReconcile {
        var prepared = PreparedReconcile()
        var keys = Set<String>()
        let now = Instant(milliseconds: clock())
        for (index, body) in bodies.enumerated() {
            switch prepare(body: body) {
            case .rejected(let status, let message):
                try quarantine.keep(body: body, status: status.rawValue, message: message, at: now)
                prepared.counts.rejected += 1
                prepared.counts.refusals.append(
                    ReconcileRefusal(document: index, status: status.rawValue, message: message))
            case .record(let entry, let evidence):
                if try ledger.seq(forIdempotencyKey: entry.idempotencyKey) != nil
                    || !keys.insert(entry.idempotencyKey).inserted
                {
                    // Best effort, as for a webhook's redelivery: a damaged evidence copy is written afresh.
                    _ = try? ledger.restoreEvidence(evidence)
                    prepared.counts.alreadyKnown += 1
                } else {
                    prepared.news.append((entry, evidence))
                }
            }
        }
        return prepared
    }

    /// Appends a prepared reconciliation's news in one durable batch, all or nothing: when anything was refused,
    /// nothing is appended. Returns the final counts.
    public func commit(_ prepared: PreparedReconcile) throws(ServiceError) -> ReconcileCounts {
        var counts = prepared.counts
        guard counts.rejected == 0, !prepared.news.isEmpty else { return counts }
        for outcome in try ledger.append(checked: prepared.news) {
            if case .appended = outcome { counts.appended += 1 } else { counts.alreadyKnown += 1 }
        }
        return counts
    }
}
