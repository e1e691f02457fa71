import LedgerAppStore
import LedgerCore
import LedgerCrypto
import LedgerJSON
import LedgerStore
import LedgerSystem

/// What became of one notification body.
public enum IngestResult: Sendable, Hashable {
    /// Verified and appended durably at `seq`.
    case appended(seq: UInt64)
    /// Verified; its notificationUUID was already in the log at `seq`.
    case duplicate(seq: UInt64)
    /// Not appended: kept in the quarantine with Apple's status name and the reason.
    case rejected(status: IngestStatus, message: String)
}

/// Counts of ingest results, as `ledger ingest` prints them.
public struct IngestCounts: Sendable, Hashable {
    /// Appended records.
    public var accepted = 0
    /// Known notifications skipped.
    public var duplicates = 0
    /// Rejected bodies.
    public var rejected = 0

    /// Empty counts.
    public init() {}

    /// Adds one result.
    public mutating func add(_ result: IngestResult) {
        switch result {
        case .appended: accepted += 1
        case .duplicate: duplicates += 1
        case .rejected: rejected += 1
        }
    }
}

/// Verify → decode → map → append, for notification bodies exactly as Apple POSTs them.
///
/// Nothing unverified is appended: a body that fails verification or decoding is rejected into the
/// quarantine with its reason. One accepted notification is one log record.
public final class IngestPipeline: Sendable {
    /// The largest body accepted, as for the webhook.
    public static let maxBodyBytes = 1 << 20

    /// Where records go.
    public let ledger: Ledger
    /// The App Store verifier.
    public let verifier: SignedDataVerifier
    /// Where rejected bodies go.
    public let quarantine: Quarantine
    let clock: @Sendable () -> Int64

    /// Creates a pipeline.
    public init(
        ledger: Ledger, verifier: SignedDataVerifier, quarantine: Quarantine,
        clock: @escaping @Sendable () -> Int64 = SystemClock.wallMilliseconds
    ) {
        self.ledger = ledger
        self.verifier = verifier
        self.quarantine = quarantine
        self.clock = clock
    }

    /// A body turned into a record, or the reason it was refused.
    public enum Prepared: Sendable {
        /// Verified and mapped: the record's log entry (checked to read back, the evidence referenced) and the
        /// raw signed payload (its evidence), hashed.
        case record(LogEntry, evidence: HashedBytes)
        /// Refused.
        case rejected(status: IngestStatus, message: String)
    }

    /// Verifies and maps one body without touching the log (thread-safe; run it on any thread).
    public func prepare(body: [UInt8]) -> Prepared {
        guard body.count <= Self.maxBodyBytes else {
            return .rejected(status: .payloadTooLarge, message: "body of \(body.count) bytes is over 1 MiB")
        }
        let verified: VerifiedNotification
        let decoded: DecodedNotification
        do {
            verified = try verifier.verifyNotification(body: body)
            // Apple's verifier decodes the payload into its types and reports a failure as a format error;
            // `ledger inspect` decodes through the same `DecodedNotification`.
            decoded = try DecodedNotification(verified)
        } catch {
            return .rejected(status: IngestStatus(error.status), message: error.message)
        }
        do {
            let record = try LedgerRecord(
                notification: decoded.notification, transaction: decoded.transaction, renewal: decoded.renewal,
                evidence: verified.evidence.sha256)
            do {
                // Encoded and checked here, on the verification threads: verified, but with a field beyond what
                // the log stores (a 70 KB product id), it is refused alone, before its batch is appended.
                return .record(try Ledger.logEntry(for: record), evidence: verified.evidence)
            } catch {
                return .rejected(status: .invalidJWTFormat, message: error.message)
            }
        } catch {
            // A notification the ledger cannot map (payloads that disagree, a field it needs but lacks).
            return .rejected(status: .invalidJWTFormat, message: error.description)
        }
    }

    /// Ingests bodies: verifies each, appends the accepted ones in one durable batch, quarantines the
    /// rest. Throws only when the log cannot be written (then nothing of the batch was appended).
    public func ingest(bodies: [[UInt8]]) throws(ServiceError) -> [IngestResult] {
        let prepared = bodies.map(prepare(body:))
        return try commit(prepared, bodies: bodies)
    }

    /// Ingests one body (the webhook's path): durable on return.
    public func ingest(body: [UInt8]) throws(ServiceError) -> IngestResult {
        try ingest(bodies: [body])[0]
    }

    /// Rejects a body too large to be read whole (an input line far over ``maxBodyBytes``, read through without
    /// being held): quarantined as `PAYLOAD_TOO_LARGE`, as a body over the limit is, from its first bytes, its
    /// size and its SHA-256.
    public func rejectUnread(prefix: [UInt8], size: Int, sha256: [UInt8], message: String) throws(ServiceError)
        -> IngestResult
    {
        let status = IngestStatus.payloadTooLarge
        try quarantine.keep(
            prefix: prefix, size: size, sha256: sha256, status: status.rawValue, message: message,
            at: Instant(milliseconds: clock()))
        return .rejected(status: status, message: message)
    }

    /// Appends the prepared records of a batch and quarantines its rejections.
    public func commit(_ prepared: [Prepared], bodies: [[UInt8]]) throws(ServiceError) -> [IngestResult] {
        var results = [IngestResult?](repeating: nil, count: prepared.count)
        var items: [(entry: LogEntry, evidence: HashedBytes?)] = []
        var positions: [Int] = []
        for (index, item) in prepared.enumerated() {
            switch item {
            case .record(let entry, let evidence):
                if let seq = try ledger.seq(forIdempotencyKey: entry.idempotencyKey) {
                    // Delivered again: its evidence, should the copy kept be damaged, is written afresh. Best
                    // effort: a failure leaves the damage as it was (`verify` reports it) and must not turn a
                    // delivery the ledger holds into an error.
                    _ = try? ledger.restoreEvidence(evidence)
                    results[index] = .duplicate(seq: seq)
                } else {
                    items.append((entry, evidence))
                    positions.append(index)
                }
            case .rejected(let status, let message):
                try quarantine.keep(
                    body: bodies[index], status: status.rawValue, message: message, at: Instant(milliseconds: clock()))
                results[index] = .rejected(status: status, message: message)
            }
        }
        if !items.isEmpty {
            let outcomes = try ledger.append(checked: items)
            for (position, outcome) in zip(positions, outcomes) {
                switch outcome {
                case .appended(let seq, _): results[position] = .appended(seq: seq)
                case .duplicate(let seq): results[position] = .duplicate(seq: seq)
                }
            }
        }
        return results.map { $0! }
    }
}
