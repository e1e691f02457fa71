import LedgerAppStore
import LedgerCore
import LedgerCrypto
import LedgerJSON
import LedgerStore

/// Counts of a reconciliation, as `ledger reconcile` prints them.
public struct ReconcileCounts: Sendable, Hashable {
    /// Facts the log lacked, now appended.
    public var appended = 0
    /// Facts the log already held.
    public var alreadyKnown = 0
    /// Items refused (failed verification, wrong environment or app, undecodable), kept in the quarantine. When
    /// any is, nothing of the call is appended.
    public var rejected = 0
    /// Why each item of a document the reconciliation read was refused (documents refused while they were parsed,
    /// ``ReconcileDocument/refused(_:_:)``, are counted but not repeated here).
    public var refusals: [ReconcileRefusal] = []

    /// Zero counts.
    public init() {}
}

/// One refused item of a reconciliation: which document of the input, Apple's status name, and why.
public struct ReconcileRefusal: Sendable, Hashable, CustomStringConvertible {
    /// The document's index in the input (0-based).
    public var document: Int
    /// The status the quarantine keeps (Apple's name, e.g. `INVALID_APP_IDENTIFIER`).
    public var status: String
    /// What was wrong.
    public var message: String

    /// `STATUS: message`.
    public var description: String { "\(status): \(message)" }
}

extension Ledger {
    /// Imports App Store Server API responses (transaction history, subscription statuses) and legacy
    /// `verifyReceipt` responses, appending only the facts the log lacks. Each response's envelope must name the
    /// ledger's environment and app (``ReconcileGate``), every signed item is verified like a notification, and a
    /// legacy receipt's environment, `receipt_type`, `bundle_id` and (production) `adam_id` must fit the ledger.
    /// Refused items go to the quarantine, and when any is refused nothing of the call is appended: an input is
    /// imported whole or not at all. Legacy facts are unsigned and marked so.
    ///
    /// A transaction named in `uncounted` (ids the caller has already counted, e.g. from the notifications of the
    /// same pull) is not counted again as `alreadyKnown`; it is still appended, and counted, when it is news.
    /// A `dryRun` verifies, quarantines and counts but appends nothing (a caller that must know the whole of a
    /// pull is good before it appends any of it).
    public func reconcile(
        _ documents: [ReconcileDocument], verifier: SignedDataVerifier, quarantine: Quarantine, now: Instant,
        uncounted: Set<String> = [], dryRun: Bool = false
    ) throws(ServiceError) -> ReconcileCounts {
        var counts = ReconcileCounts()
        var candidates: [(record: LedgerRecord, evidence: HashedBytes?)] = []
        let environment = verifier.configuration.environment
        let gate = ReconcileGate(verifier.configuration)
        var current = 0
        func reject(_ body: [UInt8], _ status: String, _ message: String, report: Bool = true) throws(ServiceError) {
            try quarantine.keep(body: body, status: status, message: message, at: now)
            counts.rejected += 1
            if report { counts.refusals.append(ReconcileRefusal(document: current, status: status, message: message)) }
        }
        func refuse(_ body: JSONValue, _ error: VerificationError) throws(ServiceError) {
            try reject(body.serializedBytes(), error.status.rawValue, error.message)
        }
        for (index, document) in documents.enumerated() {
            current = index
            switch document {
            case .transactionHistory(let page):
                do throws(VerificationError) {
                    try gate.checkEnvelope(
                        environment: page.environment, bundleId: page.bundleId, appAppleId: page.appAppleId)
                } catch {
                    try refuse(page.raw, error)
                    continue
                }
                for (position, signed) in page.signedTransactions.enumerated() {
                    let evidence = Array(signed.utf8)
                    let place = "signedTransactions[\(position)]: "
                    do {
                        let payload = try TransactionPayload(json: try verifier.verifyTransaction(signed))
                        let record = try LedgerRecord(
                            historyTransaction: payload, responseEnvironment: page.environment, evidence: nil)
                        candidates.append((record, HashedBytes(evidence)))
                    } catch let error as VerificationError {
                        try reject(evidence, error.status.rawValue, place + error.message)
                    } catch {
                        try reject(evidence, VerificationStatus.invalidJWTFormat.rawValue, place + "\(error)")
                    }
                }
            case .subscriptionStatuses(let response):
                do throws(VerificationError) {
                    try gate.checkEnvelope(
                        environment: response.environment, bundleId: response.bundleId,
                        appAppleId: response.appAppleId)
                } catch {
                    try refuse(response.raw, error)
                    continue
                }
                for (position, item) in response.lastTransactions.enumerated() {
                    let evidence = item.evidencePayload
                    let place = "lastTransactions item \(position + 1): "
                    do {
                        guard let signedTransaction = item.signedTransactionInfo else {
                            throw AppStoreError(
                                .missingField, "the item has no signedTransactionInfo", path: "signedTransactionInfo")
                        }
                        let transaction = try TransactionPayload(
                            json: try verifier.verifyTransaction(signedTransaction))
                        let renewal = try item.signedRenewalInfo.map { (signed: String) throws -> RenewalInfoPayload in
                            try RenewalInfoPayload(json: try verifier.verifyRenewalInfo(signed))
                        }
                        let record = try LedgerRecord(
                            status: item, transaction: transaction, renewal: renewal,
                            responseEnvironment: response.environment, evidence: nil)
                        candidates.append((record, HashedBytes(evidence)))
                    } catch let error as VerificationError {
                        try reject(evidence, error.status.rawValue, place + error.message)
                    } catch {
                        try reject(evidence, VerificationStatus.invalidJWTFormat.rawValue, place + "\(error)")
                    }
                }
            case .legacyReceipt(let receipt):
                let raw = receipt.raw.serializedBytes()
                do throws(VerificationError) {
                    try gate.check(receipt)
                } catch {
                    try refuse(receipt.raw, error)
                    continue
                }
                do {
                    for record in try receipt.records(environment: environment) { candidates.append((record, nil)) }
                } catch {
                    try reject(raw, "INVALID_RECEIPT", error.description)
                }
            case .refused(let raw, let reason):
                try reject(raw.serializedBytes(), Self.refusalStatus(raw, reason), reason.description, report: false)
            }
        }
        // Each fact is encoded and checked once, its evidence referenced: one the log could not store (a field
        // beyond its limits) is refused alone, like an unverifiable one.
        var storable: [(record: LedgerRecord, entry: LogEntry, evidence: HashedBytes?)] = []
        for candidate in candidates {
            var record = candidate.record
            if let evidence = candidate.evidence { record.evidence = evidence.sha256 }
            do throws(ServiceError) {
                storable.append((record, try Self.logEntry(for: record), candidate.evidence))
            } catch {
                let body = candidate.evidence?.bytes ?? candidate.record.json.serializedBytes()
                try reject(body, "INVALID_RECORD", error.message)
            }
        }
        // Learn what the log knows about every subscription named, then keep only news.
        var known = KnownFacts()
        var learned = Set<String>()
        var news: [(entry: LogEntry, evidence: HashedBytes?)] = []
        for candidate in storable {
            if let otid = candidate.record.subject.originalTransactionId, learned.insert(otid).inserted {
                for entry in try entries(for: .originalTransaction(otid)) { known.learn(entry.record) }
            }
            if try seq(forIdempotencyKey: candidate.record.idempotencyKey) == nil, known.adds(candidate.record) {
                news.append((candidate.entry, candidate.evidence))
                known.learn(candidate.record)
            } else if let transactionId = candidate.record.transaction?.transactionId,
                uncounted.contains(transactionId)
            {
                continue
            } else {
                counts.alreadyKnown += 1
            }
        }
        // A refused input appends nothing at all, not even its good parts: the operator fixes it (or fetches it
        // again) and reconciles it whole.
        if !news.isEmpty, counts.rejected == 0, !dryRun {
            for outcome in try append(checked: news) {
                if case .appended = outcome { counts.appended += 1 } else { counts.alreadyKnown += 1 }
            }
        }
        return counts
    }

    /// The quarantine status of a document the reconciliation refused whole: none it knows
    /// (`UNRECOGNIZED_DOCUMENT`), a legacy receipt that is refused or does not decode (`INVALID_RECEIPT`), or an
    /// API response whose own JSON does not decode (`INVALID_RESPONSE`).
    static func refusalStatus(_ raw: JSONValue, _ reason: AppStoreError) -> String {
        if reason.code == .unrecognizedDocument { return "UNRECOGNIZED_DOCUMENT" }
        if reason.code == .receiptStatus || raw["status"] != nil { return "INVALID_RECEIPT" }
        return "INVALID_RESPONSE"
    }
}
