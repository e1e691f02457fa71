import LedgerAppStore
import LedgerCore
import LedgerCrypto
import LedgerJSON
import LedgerStore

/// Export and import: the log as JSON Lines, one record a line, carrying everything needed to append it
/// again byte for byte (so an import into an empty directory reproduces the head hash) plus the
/// normalised record and its evidence for people and other tools.
///
/// A line: `{"seq","recordedAt","recordedAtMs","idempotencyKey","subjectKeys","hash","payload" (base64 of
/// the binary record),"record" (normalised JSON),"evidence":{"sha256","signedPayload"} (when the record has
/// evidence)}`.
extension Ledger {
    /// The export line of one log record.
    public func exportLine(_ record: LogRecord) throws(ServiceError) -> JSONValue {
        let entry = try Ledger.entry(from: record)
        var object: JSONObject = [
            "seq": .integer(Int64(clamping: record.seq)),
            "recordedAt": .string(Instant(milliseconds: record.recordedAt).iso8601),
            "recordedAtMs": .integer(record.recordedAt),
            "idempotencyKey": .string(record.idempotencyKey),
            "subjectKeys": .array(record.subjectKeys.map(JSONValue.string)),
            "hash": .string(Hex.encode(record.hash)),
            "payload": .string(Base64.encode(record.payload)),
            "record": entry.record.json,
        ]
        if let sha = entry.record.evidence {
            let raw: [UInt8]?
            do {
                raw = try log.evidence(sha)
            } catch {
                throw ServiceError(error)
            }
            object["evidence"] = .object([
                "sha256": .string(Hex.encode(sha)),
                "signedPayload": .string(raw.map { String(decoding: $0, as: UTF8.self) }),
            ])
        }
        return .object(object)
    }

    /// Appends the records of export lines, idempotently (a record already in the log by its idempotency
    /// key is skipped). Every line is parsed and checked once, before anything is appended: the payload must
    /// decode, the keys must be the record's own, the evidence must hash to what the record references, and the
    /// chain hashes must be the export's (``ImportCheck``). Appends in batches of ``importBatchSize``, calling
    /// `progress` with the lines done after each. Holds every line: an export too large for memory goes through
    /// ``importItem(_:number:)``, ``importCheck()`` and ``appendImported(_:)`` a batch at a time instead.
    public func importLines(_ lines: [JSONValue], progress: ((Int) -> Void)? = nil) throws(ServiceError)
        -> (appended: Int, alreadyKnown: Int)
    {
        var items: [ExportItem] = []
        items.reserveCapacity(lines.count)
        for (index, line) in lines.enumerated() { items.append(try importItem(line, number: index + 1)) }
        var check = importCheck()
        for item in items { try check.check(item) }
        var appended = 0
        var start = 0
        while start < items.count {
            let batch = items[start..<min(start + Self.importBatchSize, items.count)]
            appended += try appendImported(batch)
            start = batch.endIndex
            progress?(start)
        }
        return (appended, items.count - appended)
    }

    /// How many records an import appends at once.
    public static let importBatchSize = 1024

    /// Appends checked export items (``importItem(_:number:)``, every one of the import passed through
    /// ``ImportCheck`` first) with their evidence; returns how many were appended (the others the log held
    /// already).
    public func appendImported(_ items: some Collection<ExportItem>) throws(ServiceError) -> Int {
        do {
            let evidence = items.compactMap(\.evidence)
            if !evidence.isEmpty { _ = try log.putEvidence(batch: evidence) }
            var appended = 0
            for outcome in try log.append(items.map(\.entry)) {
                if case .appended = outcome { appended += 1 }
            }
            return appended
        } catch {
            throw ServiceError(error)
        }
    }

    /// One export line, parsed and checked (``importItem(_:number:)``): what an import appends.
    public struct ExportItem: Sendable {
        let number: Int
        let entry: LogEntry
        /// The environment of the record the line carries.
        public let environment: LedgerEnvironment
        /// The evidence bytes the record references, hashed against the reference.
        let evidence: [UInt8]?
        let exportedSeq: Int64
        let exportedHash: [UInt8]
    }

    /// A check of an import's items in their order, against this log as it is now (see ``ImportCheck``).
    public func importCheck() -> ImportCheck { ImportCheck(self) }

    /// Checks that importing export items, in order, reproduces the chain hashes the export carries wherever it
    /// continues the exporter's chain: a record that lands at its exported seq right after a record whose hash is
    /// the exporter's (from the first record of an empty log on, the environment's genesis hash) must get its
    /// exported `hash`. So an export altered after it was written (a payload, a time) is refused whole instead of
    /// being appended with another hash, and so is one with lines deleted from it (its seqs jump where it continues
    /// the exporter's chain). Records the log holds already, or that came earlier in the import, are skipped, as
    /// the import skips them; where the import does not continue the exporter's chain (another log's records
    /// before it) there is nothing to compare, and nothing is refused. Keeps the idempotency keys it has seen.
    public struct ImportCheck {
        private let ledger: Ledger
        private var seq: UInt64
        private var previous: [UInt8]
        /// The exporter's hash of record `seq`, when known: the genesis hash before the first record.
        private var exporterPrevious: [UInt8]?
        private var seen = Set<String>()
        private var first = true

        init(_ ledger: Ledger) {
            self.ledger = ledger
            let head = ledger.log.head
            seq = head.seq
            previous = head.hash
        }

        /// Checks the next item.
        ///
        /// - Throws: ``ServiceError`` `invalidInput` naming the item's line when its record does not hash as
        ///   exported, or the export skips records.
        public mutating func check(_ item: ExportItem) throws(ServiceError) {
            defer { first = false }
            if first, seq == 0 {
                previous = LogFormat.genesis(environment: item.environment.rawValue)
                exporterPrevious = previous
            }
            let entry = item.entry
            guard seen.insert(entry.idempotencyKey).inserted,
                try ledger.seq(forIdempotencyKey: entry.idempotencyKey) == nil
            else {
                exporterPrevious = item.exportedHash
                return
            }
            guard let recordedAt = entry.recordedAt else { return }  // always set, from recordedAtMs
            seq += 1
            // Continuing the exporter's chain, the export's seqs are gap-free: a later seq than the next one means
            // lines were deleted from the export (the records after them would be appended renumbered).
            if !first, exporterPrevious == previous, item.exportedSeq > Int64(clamping: seq) {
                throw ServiceError(
                    .invalidInput,
                    "line \(item.number): the export jumps to record \(item.exportedSeq) where record \(seq) comes "
                        + "next: lines were removed from the export after it was written. Nothing was imported")
            }
            let computed = LogFormat.chainHash(previous: previous, seq: seq, recordedAt: recordedAt, entry: entry)
            if item.exportedSeq == Int64(clamping: seq), exporterPrevious == previous, computed != item.exportedHash {
                throw ServiceError(
                    .invalidInput,
                    "line \(item.number): record \(seq) does not hash to the export's hash "
                        + "\(Hex.encode(item.exportedHash)) (it gives \(Hex.encode(computed))): the export was altered "
                        + "after it was written. Nothing was imported")
            }
            previous = computed
            exporterPrevious = item.exportedHash
        }
    }

    /// One export line (line `number` of the import), checked: its log entry (the record's own keys), and the
    /// evidence bytes the record references, hashed against the reference.
    ///
    /// - Throws: ``ServiceError`` `invalidInput` naming the line and what is wrong with it, or
    ///   `environmentMismatch` for a record of the other environment.
    public func importItem(_ line: JSONValue, number: Int) throws(ServiceError) -> ExportItem {
        let where_ = "line \(number)"
        // The exporter's seq and chain hash are required: without them an altered record could not be told.
        guard let key = line["idempotencyKey"]?.string, let payloadText = line["payload"]?.string,
            let payload = Base64.decode(payloadText), let recordedAt = line["recordedAtMs"]?.int64,
            let exportedSeq = line["seq"]?.int64, let exportedHash = line["hash"]?.string.flatMap(Hex.decode),
            exportedHash.count == 32
        else {
            throw ServiceError(
                .invalidInput,
                "\(where_) is not an export line: it needs idempotencyKey, payload, recordedAtMs, seq and a 32-byte "
                    + "hex hash")
        }
        let record: LedgerRecord
        do {
            record = try LedgerRecord(decoding: payload)
        } catch {
            throw ServiceError(.invalidInput, "\(where_): the payload is not a ledger record: \(error)")
        }
        if let environment = log.environment, environment != record.environment.rawValue {
            throw ServiceError(
                .environmentMismatch,
                "\(where_) is a \(record.environment.rawValue) record; this data directory holds \(environment)")
        }
        // The keys are the record's own, as the ledger derives them when it appends: an export cannot index a
        // record under another subject or key.
        guard key == record.idempotencyKey else {
            throw ServiceError(
                .invalidInput, "\(where_): the idempotencyKey is not the record's own (\(record.idempotencyKey))")
        }
        let subjectKeys = SubjectKeys.keys(for: record)
        if let listed = line["subjectKeys"], listed.array?.compactMap(\.string) != subjectKeys {
            throw ServiceError(
                .invalidInput,
                "\(where_): the subjectKeys are not the record's own (\(subjectKeys.joined(separator: ", ")))")
        }
        // The normalised record is for people and other tools, but it must say what the payload says: a line
        // whose `record` differs from its payload's decoding would show one thing and append another.
        if let listed = line["record"], let field = Self.firstDifference(listed, record.json, path: "record") {
            throw ServiceError(
                .invalidInput,
                "\(where_): its record differs from the decoding of its payload at \(field); the line was altered "
                    + "after it was exported. Nothing was imported")
        }
        var evidence: [UInt8]?
        if let sha = record.evidence {
            guard let text = line["evidence"]?["signedPayload"]?.string else {
                throw ServiceError(.invalidInput, "\(where_): the record references evidence the line does not carry")
            }
            let bytes = Array(text.utf8)
            guard SHA256.hash(bytes) == sha else {
                throw ServiceError(.invalidInput, "\(where_): the evidence does not hash to what the record references")
            }
            evidence = bytes
        }
        let entry = LogEntry(idempotencyKey: key, subjectKeys: subjectKeys, payload: payload, recordedAt: recordedAt)
        do {
            try entry.validate()
        } catch {
            throw ServiceError(.invalidInput, "\(where_): \(error.message)")
        }
        return ExportItem(
            number: number, entry: entry, environment: record.environment, evidence: evidence,
            exportedSeq: exportedSeq, exportedHash: exportedHash)
    }

    /// The first field at which two JSON values differ, named by its path (`record.transaction.productId`,
    /// `record.subject`), or nil when they are equal. Members compare by name, whatever their order; a member
    /// one side lacks is a difference there.
    static func firstDifference(_ lhs: JSONValue, _ rhs: JSONValue, path: String) -> String? {
        switch (lhs, rhs) {
        case (.object(let left), .object(let right)):
            for (key, value) in left {
                guard let other = right[key] else { return "\(path).\(key)" }
                if let found = firstDifference(value, other, path: "\(path).\(key)") { return found }
            }
            for key in right.keys where left[key] == nil { return "\(path).\(key)" }
            return nil
        case (.array(let left), .array(let right)):
            for (index, (value, other)) in zip(left, right).enumerated() {
                if let found = firstDifference(value, other, path: "\(path)[\(index)]") { return found }
            }
            return left.count == right.count ? nil : path
        default:
            return lhs == rhs ? nil : path
        }
    }
}
