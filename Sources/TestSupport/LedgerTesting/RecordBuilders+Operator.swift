import LedgerCore

extension RecordBuilders {
    /// An operator's grant of `productId` over `[from, until)` to a subject (user, account or subscription).
    public static func grant(
        _ subject: Subject, productId: String, from: Instant, until: Instant, key: String,
        environment: LedgerEnvironment = .sandbox
    ) -> LedgerRecord {
        LedgerRecord(
            environment: environment, source: .correction, idempotencyKey: key, subject: subject,
            correction: Correction(
                action: .grant(productId: productId, from: from, until: until), reason: "goodwill",
                operatorName: "ops"))
    }

    /// An operator's revoke, from `from`, of every grant of a subject covering `from`.
    public static func revoke(
        _ subject: Subject, from: Instant, key: String, environment: LedgerEnvironment = .sandbox
    ) -> LedgerRecord {
        LedgerRecord(
            environment: environment, source: .correction, idempotencyKey: key, subject: subject,
            correction: Correction(action: .revoke(from: from), reason: "fraud", operatorName: "ops"))
    }

    /// An operator's link of subscription `originalTransactionId` to a user or account.
    public static func link(
        originalTransactionId: String, userId: Int64? = nil, appAccountToken: String? = nil, key: String,
        environment: LedgerEnvironment = .sandbox
    ) -> LedgerRecord {
        LedgerRecord(
            environment: environment, source: .link, idempotencyKey: key,
            subject: Subject(
                originalTransactionId: originalTransactionId, appAccountToken: appAccountToken, userId: userId),
            link: Link(reason: "support ticket", operatorName: "ops"))
    }

    /// A transaction imported from the App Store Server API (transaction history), not a notification.
    public static func imported(_ transaction: TransactionFacts, environment: LedgerEnvironment = .sandbox)
        -> LedgerRecord
    {
        LedgerRecord(
            environment: environment, source: .transactionHistory,
            idempotencyKey: "txn:\(transaction.transactionId):\(transaction.signedDate.milliseconds)",
            subject: Subject(
                originalTransactionId: transaction.originalTransactionId,
                appAccountToken: transaction.appAccountToken),
            transaction: transaction)
    }
}

/// Appends records as the log would: gap-free sequence numbers from 1, and a recording time (by default
/// the record's signing time plus a delivery delay).
public struct EntryLog: Sendable {
    /// The entries so far, in sequence order.
    public private(set) var entries: [LedgerEntry] = []
    /// How long after Apple signs a notification the ledger records it, by default.
    public var deliveryDelay: Int64

    /// Starts an empty log.
    public init(deliveryDelay: Int64 = 1_000) {
        self.deliveryDelay = deliveryDelay
    }

    /// Appends a record; corrections and links need an explicit `recordedAt` unless they have a `from`.
    @discardableResult
    public mutating func append(_ record: LedgerRecord, recordedAt: Instant? = nil) -> LedgerEntry {
        let signed =
            record.notification?.signedDate ?? record.transaction?.signedDate ?? record.renewal?.signedDate
            ?? record.correction?.effectiveAt ?? .distantPast
        let entry = LedgerEntry(
            seq: UInt64(entries.count + 1), recordedAt: recordedAt ?? signed.adding(milliseconds: deliveryDelay),
            record: record)
        entries.append(entry)
        return entry
    }

    /// Appends several records with the default recording times.
    public mutating func append(_ records: [LedgerRecord]) {
        for record in records { append(record) }
    }
}
