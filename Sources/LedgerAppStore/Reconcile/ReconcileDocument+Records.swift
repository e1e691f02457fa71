import LedgerCore
import LedgerCrypto
import LedgerJSON

/// The outcome of turning one reconcile document into records: what to offer the log, and what
/// was refused and why.
public struct ReconcileImport {
    /// A record and the bytes its evidence hash covers (the JWS, or a status item's compact JSON);
    /// no bytes for unsigned legacy records.
    public struct Entry {
        /// The record to append unless the log already knows its facts.
        public var record: LedgerRecord
        /// The evidence bytes to keep beside the log; SHA-256 of them is `record.evidence`.
        public var evidencePayload: [UInt8]?
    }

    /// One refused signed item or document.
    public struct Rejection {
        /// Where it was, e.g. `signedTransactions[3]` or `data[0].lastTransactions[1]`.
        public var location: String
        /// Why: the verifier's error or an ``AppStoreError``.
        public var error: any Error
    }

    /// The records, in document order.
    public var entries: [Entry] = []
    /// The refusals, in document order.
    public var rejections: [Rejection] = []

    /// Creates an empty outcome.
    public init() {}
}

extension ReconcileDocument {
    /// Turns the document into records, verifying each signed payload with `verify` (the same
    /// verification as notifications: chain, signature, bundle id, environment) before decoding it.
    ///
    /// A signed item that fails verification or decoding is refused on its own; the others are
    /// still imported. A legacy receipt is unsigned and imports or fails as a whole.
    ///
    /// - Parameters:
    ///   - fallback: the environment for payloads and responses that name none (iOS 6-style receipts).
    ///   - verify: verifies a compact JWS and returns its decoded payload.
    public func records(
        environment fallback: LedgerEnvironment? = nil, verify: (String) throws -> JSONValue
    ) -> ReconcileImport {
        var out = ReconcileImport()
        switch self {
        case .transactionHistory(let page):
            for (i, jws) in page.signedTransactions.enumerated() {
                do {
                    let transaction = try TransactionPayload(json: try verify(jws))
                    let evidence = Array(jws.utf8)
                    let record = try LedgerRecord(
                        historyTransaction: transaction, responseEnvironment: page.environment ?? fallback,
                        evidence: SHA256.hash(evidence))
                    out.entries.append(.init(record: record, evidencePayload: evidence))
                } catch {
                    out.rejections.append(.init(location: "signedTransactions[\(i)]", error: error))
                }
            }
        case .subscriptionStatuses(let response):
            for (g, group) in response.data.enumerated() {
                for (i, item) in group.lastTransactions.enumerated() {
                    let location = "data[\(g)].lastTransactions[\(i)]"
                    do {
                        guard let signedTransaction = item.signedTransactionInfo else {
                            throw AppStoreError.missing("\(location).signedTransactionInfo")
                        }
                        let transaction = try TransactionPayload(json: try verify(signedTransaction))
                        let renewal = try item.signedRenewalInfo.map { try RenewalInfoPayload(json: try verify($0)) }
                        let evidence = item.evidencePayload
                        let record = try LedgerRecord(
                            status: item, transaction: transaction, renewal: renewal,
                            responseEnvironment: response.environment ?? fallback, evidence: SHA256.hash(evidence))
                        out.entries.append(.init(record: record, evidencePayload: evidence))
                    } catch {
                        out.rejections.append(.init(location: location, error: error))
                    }
                }
            }
        case .legacyReceipt(let receipt):
            do {
                for record in try receipt.records(environment: fallback) {
                    out.entries.append(.init(record: record, evidencePayload: nil))
                }
            } catch {
                out.rejections.append(.init(location: "legacy receipt", error: error))
            }
        }
        return out
    }
}
