/// Records decoded for the entitlement fold alone: what ``EntitlementFold`` reads of each record, straight from
/// its binary encoding, without building a ``LedgerRecord``.
///
/// A query or a rebuild folds tens of records per subject; building each whole record (some twenty fields, half
/// a dozen strings) cost more than reading it and folding it together. ``append(seq:recordedAt:payload:)``
/// checks the encoding exactly as ``LedgerRecord/init(decoding:)`` does (the same bytes are refused with the
/// same error) but keeps only the fold's facts: strings it does not read are validated and skipped, the long
/// ones it does read (tokens, identifiers) are shared between the records of the batch. Operator records
/// (corrections and links, which are rare) are decoded whole. The fold gives exactly the answers it gives on the
/// same records as ``LedgerEntry`` values.
public struct FoldRecords: Sendable {
    /// The facts of each record, in the order appended.
    private(set) var facts: [EntitlementFold.Fact] = []
    /// Every record's payload, back to back: record `i` ends at `ends[i]` (the fold's last tie-break compares
    /// two encodings, and operator records are decoded whole from theirs when the fold asks).
    private var payloads: [UInt8] = []
    private var ends: [Int] = []
    /// Long strings read so far, shared between the records.
    var strings = FoldStrings()

    /// An empty batch.
    public init() {}

    /// How many records the batch holds.
    public var count: Int { facts.count }

    /// Whether the batch holds no record.
    public var isEmpty: Bool { facts.isEmpty }

    /// Empties the batch, keeping its storage for the next one.
    public mutating func removeAll() {
        facts.removeAll(keepingCapacity: true)
        payloads.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        strings.removeAll()
    }

    /// The subscriptions a record names: its subject's original transaction id and its transaction's.
    public struct Named: Sendable {
        /// The subject's original transaction id, when it has one.
        public var subject: String?
        /// The transaction's original transaction id, when the record carries a transaction.
        public var transaction: String?

        /// Names a record's subscriptions.
        public init(subject: String?, transaction: String?) {
            self.subject = subject
            self.transaction = transaction
        }
    }

    /// Decodes one record's payload (see `LedgerRecord+Binary.swift`) and adds it to the batch.
    ///
    /// - Returns: the subscriptions the record names (a query follows them to the records of their owner).
    /// - Throws: ``CoreError`` exactly where ``LedgerRecord/init(decoding:)`` throws; the batch is unchanged then.
    @discardableResult
    public mutating func append(seq: UInt64, recordedAt: Instant, payload: UnsafeRawBufferPointer) throws(CoreError)
        -> Named
    {
        let (fact, named) = try decodeFact(seq: seq, recordedAt: recordedAt, payload, position: facts.count)
        if facts.capacity == 0 { reserve() }
        facts.append(fact)
        payloads.append(contentsOf: payload)
        ends.append(payloads.count)
        return named
    }

    /// Room for a subject's records, so that the first few dozen appends do not regrow the arrays.
    private mutating func reserve() {
        facts.reserveCapacity(32)
        ends.reserveCapacity(32)
        payloads.reserveCapacity(32 << 8)
    }

    /// Adds a record already decoded whole (its payload is its encoding).
    public mutating func append(_ entry: LedgerEntry) {
        if facts.capacity == 0 { reserve() }
        facts.append(EntitlementFold.Fact(facts.count, entry))
        payloads.append(contentsOf: entry.record.encoded())
        ends.append(payloads.count)
    }

    /// Calls `body` with record `index`'s payload.
    private func withPayload<Result>(_ index: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        let start = index == 0 ? 0 : ends[index - 1]
        return payloads.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<ends[index]])) }
    }

    /// Record `index` decoded whole (the fold reads operator records so). It decoded once already; should it
    /// not now, an empty record stands in, never a trap.
    func record(_ index: Int) -> LedgerRecord {
        withPayload(index) { payload in
            (try? LedgerRecord(decoding: payload))
                ?? LedgerRecord(
                    environment: LedgerEnvironment(rawValue: ""), source: RecordSource(rawValue: 0),
                    idempotencyKey: facts[index].key, subject: Subject())
        }
    }

    /// Whether record `lhs`'s encoding sorts before record `rhs`'s (false when they are equal).
    func payloadPrecedes(_ lhs: Int, _ rhs: Int) -> Bool {
        withPayload(lhs) { left in withPayload(rhs) { right in left.lexicographicallyPrecedes(right) } }
    }
}

extension FoldRecords {
    /// The user ids the records' subjects name, each once, in the order first named.
    public var userIds: [Int64] {
        var users: [Int64] = []
        for fact in facts {
            if let user = fact.userId, !users.contains(user) { users.append(user) }
        }
        return users
    }

    /// The earliest instant after `at` that any record names: purchases, expiries, revocations, grace ends,
    /// renewal dates, signing times, corrections' bounds. The fold's answer cannot change before it.
    public func nextChange(after at: Instant) -> Instant? {
        var next: Instant?
        func consider(_ instant: Instant?) {
            guard let instant, instant > at else { return }
            if next.map({ instant < $0 }) ?? true { next = instant }
        }
        for (index, fact) in facts.enumerated() {
            consider(fact.notificationSigned)
            if fact.hasTransaction {
                consider(fact.purchase)
                consider(fact.expires)
                consider(fact.revocation)
                consider(fact.transactionSigned)
            }
            consider(fact.renewalSigned)
            consider(fact.gracePeriodExpires)
            consider(fact.renewalDate)
            if fact.hasOperatorPart, let correction = record(index).correction {
                switch correction.action {
                case .grant(_, let from, let until):
                    consider(from)
                    consider(until)
                case .revoke(let from): consider(from)
                }
            }
        }
        return next
    }
}

/// The long strings (over 15 bytes: shorter ones live inline in a `String` and cost nothing) read into a
/// batch's facts, so the records of one subject share one copy of its token and identifiers. A linear scan
/// over a few dozen hashes: a subject names few distinct values; beyond the first 32 strings are not shared.
struct FoldStrings: Sendable {
    private static let capacity = 32
    private var hashes: [UInt64] = []
    private var values: [String] = []

    /// Forgets every string.
    mutating func removeAll() {
        hashes.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
    }

    /// The string of these bytes (valid ASCII, over 15 bytes): a shared copy when one was read before.
    mutating func string(_ bytes: UnsafeRawBufferPointer) -> String {
        let hash = EntitlementFold.Fact.hash(bytes)
        for index in hashes.indices where hashes[index] == hash {
            var known = values[index]
            if known.withUTF8({ Self.equal(UnsafeRawBufferPointer($0), bytes) }) { return known }
        }
        let string = String(decoding: bytes, as: UTF8.self)
        if hashes.count < Self.capacity {
            hashes.append(hash)
            values.append(string)
        }
        return string
    }

    /// Whether two runs of bytes are equal, a word at a time.
    @inline(__always)
    static func equal(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard let left = lhs.baseAddress, let right = rhs.baseAddress else { return true }
        var offset = 0
        while offset + 8 <= lhs.count {
            if left.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                != right.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            {
                return false
            }
            offset += 8
        }
        while offset < lhs.count {
            if lhs[offset] != rhs[offset] { return false }
            offset += 1
        }
        return true
    }
}
