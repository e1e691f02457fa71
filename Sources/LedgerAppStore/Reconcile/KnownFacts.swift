import LedgerCore

/// What the log already knows about each transaction and each subscription's renewal state, so
/// `ledger reconcile` appends only the facts the log lacks.
///
/// Apple re-signs the same transaction for every API response, so a fresh signed date alone is no
/// news. An imported version adds a fact when its content (everything but the signed date) differs
/// from the version the log holds as of the same instant: the latest known version signed at or
/// before it, or the earliest known one when it predates them all. A refund that was later reversed
/// is therefore news again, while a re-fetched unchanged transaction is not.
public struct KnownFacts: Sendable {
    private var transactions: [String: [TransactionFacts]] = [:]
    private var renewals: [String: [RenewalFacts]] = [:]

    /// An empty knowledge.
    public init() {}

    /// Adds the signed facts of a record the log holds (any source).
    public mutating func learn(_ record: LedgerRecord) {
        if let transaction = record.transaction {
            Self.insert(transaction, into: &transactions[transaction.transactionId, default: []])
        }
        if let renewal = record.renewal {
            Self.insert(renewal, into: &renewals[renewal.originalTransactionId, default: []])
        }
    }

    /// Whether the record carries a transaction or renewal state the log lacks. A record with
    /// neither (an operator record, a summary notification) is always news.
    public func adds(_ record: LedgerRecord) -> Bool {
        guard record.transaction != nil || record.renewal != nil else { return true }
        if let transaction = record.transaction,
            Self.isNew(transaction, among: transactions[transaction.transactionId] ?? [], content: Self.content)
        {
            return true
        }
        if let renewal = record.renewal,
            Self.isNew(renewal, among: renewals[renewal.originalTransactionId] ?? [], content: Self.content)
        {
            return true
        }
        return false
    }

    private static func insert<T: Hashable>(_ facts: T, into versions: inout [T]) where T: SignedFacts {
        let index = versions.firstIndex { $0.signedDate > facts.signedDate } ?? versions.count
        versions.insert(facts, at: index)
    }

    private static func isNew<T: SignedFacts>(_ facts: T, among versions: [T], content: (T) -> T) -> Bool {
        guard let earliest = versions.first else { return true }
        let prior = versions.last { $0.signedDate <= facts.signedDate } ?? earliest
        return content(prior) != content(facts)
    }

    private static func content(_ facts: TransactionFacts) -> TransactionFacts {
        var copy = facts
        copy.signedDate = Instant(milliseconds: 0)
        return copy
    }

    private static func content(_ facts: RenewalFacts) -> RenewalFacts {
        var copy = facts
        copy.signedDate = Instant(milliseconds: 0)
        return copy
    }
}

/// Facts that carry the date Apple signed them.
protocol SignedFacts: Hashable {
    var signedDate: Instant { get }
}

extension TransactionFacts: SignedFacts {}
extension RenewalFacts: SignedFacts {}
