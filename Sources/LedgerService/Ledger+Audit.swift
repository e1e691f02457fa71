import LedgerAppStore
import LedgerCore
import LedgerCrypto
import LedgerJSON

/// What an audit found for one record.
public struct AuditFinding: Sendable, Hashable {
    /// What the evidence check concluded.
    public enum Evidence: Sendable, Hashable {
        /// The Apple-signed original re-verified (signature and chain at its signedDate) and re-derives
        /// exactly the stored record.
        case verified
        /// A legacy receipt: Apple did not sign it; the record says so.
        case unsigned
        /// An operator's correction, link or void: the ledger's own record, not Apple's.
        case operatorRecord
        /// The check failed, with the reason.
        case failed(String)
    }

    /// The record's seq.
    public var seq: UInt64
    /// The record's kind.
    public var kind: String
    /// Whether its chain link holds.
    public var chainLinkHolds: Bool
    /// The evidence check.
    public var evidence: Evidence

    /// Whether the record passed.
    public var passed: Bool {
        if !chainLinkHolds { return false }
        if case .failed = evidence { return false }
        return true
    }
}

extension Ledger {
    /// Re-verifies every evidence payload of the subject's records against the verifier's trust roots, at each
    /// payload's own signedDate, checks that it re-derives the stored record exactly, and checks each record's
    /// links in the hash chain: to the record before it and from the record after it.
    public func audit(_ query: SubjectQuery, verifier: SignedDataVerifier) throws(ServiceError) -> [AuditFinding] {
        var findings: [AuditFinding] = []
        for entry in try history(of: query).sorted(by: { $0.seq < $1.seq }) {
            let chain: Bool
            do {
                let record = try log.record(seq: entry.seq)
                // A record rewritten with its own hash recomputed still links to the one before it; the link after
                // it, made from the hash as first written, is what breaks. That leaves the same bytes as the next
                // record rewritten in place, so a broken link fails the records at both its ends. (The head
                // itself needs a pinned digest: `verify --expect-head`.)
                chain =
                    try record.chainLinkHolds(after: log.previousHash(of: entry.seq))
                    && (entry.seq >= log.head.seq || log.record(seq: entry.seq + 1).chainLinkHolds(after: record.hash))
            } catch {
                chain = false
            }
            findings.append(
                AuditFinding(
                    seq: entry.seq, kind: entry.kind, chainLinkHolds: chain, evidence: checkEvidence(entry, verifier)))
        }
        return findings
    }

    func checkEvidence(_ entry: LedgerEntry, _ verifier: SignedDataVerifier) -> AuditFinding.Evidence {
        let stored = entry.record
        if stored.source == .correction || stored.source == .link || stored.source == .void
            || stored.source == .catalog
        {
            return .operatorRecord
        }
        guard let digest = stored.evidence else {
            return stored.source == .legacyReceipt ? .unsigned : .failed("the record references no evidence")
        }
        let bytes: [UInt8]
        do {
            guard let found = try log.evidence(digest) else {
                return .failed("evidence \(Hex.encode(digest)) is missing from the data directory")
            }
            bytes = found
        } catch {
            return .failed("evidence \(Hex.encode(digest)) cannot be read: \(error.message)")
        }
        guard SHA256.hash(bytes) == digest else {
            return .failed("evidence \(Hex.encode(digest)) was altered: its content no longer hashes to its name")
        }
        let rederived: LedgerRecord
        do {
            rederived = try Self.rederive(stored.source, from: bytes, verifier: verifier)
        } catch let error as VerificationError {
            return .failed("\(error.status.rawValue): \(error.message)")
        } catch {
            return .failed("the evidence does not decode: \(error)")
        }
        var expected = stored
        expected.evidence = nil
        guard rederived == expected else {
            return .failed("the evidence verifies but re-derives a different record than the one stored")
        }
        return .verified
    }

    /// The record a signed original maps to, verified from scratch (every nested signature too).
    static func rederive(_ source: RecordSource, from bytes: [UInt8], verifier: SignedDataVerifier) throws
        -> LedgerRecord
    {
        let text = String(decoding: bytes, as: UTF8.self)
        switch source {
        case .notification:
            let decoded = try DecodedNotification(verifier.verifyNotification(text))
            return try LedgerRecord(
                notification: decoded.notification, transaction: decoded.transaction, renewal: decoded.renewal,
                evidence: nil)
        case .transactionHistory:
            let payload = try TransactionPayload(json: try verifier.verifyTransaction(text))
            return try LedgerRecord(historyTransaction: payload, evidence: nil)
        case .subscriptionStatus:
            let item = try LastTransactionStatus(json: try JSONValue.parse(bytes), path: "evidence")
            guard let signed = item.signedTransactionInfo else {
                throw AppStoreError(
                    .missingField, "the evidence has no signedTransactionInfo", path: "signedTransactionInfo")
            }
            let transaction = try TransactionPayload(json: try verifier.verifyTransaction(signed))
            let renewal = try item.signedRenewalInfo.map {
                try RenewalInfoPayload(json: try verifier.verifyRenewalInfo($0))
            }
            return try LedgerRecord(status: item, transaction: transaction, renewal: renewal, evidence: nil)
        default:
            throw AppStoreError(.invalidValue, "records from \(source) carry no signed evidence", path: "source")
        }
    }
}
