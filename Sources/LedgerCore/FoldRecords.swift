/// Records decoded for the entitlement fold alone: what ``EntitlementFold`` reads of each record, straight from
/// its binary encoding, without building a ``LedgerRecord``.
///
/// A query or a rebuild folds tens of records per subject; building each whole record (some twenty fields, half
/// a dozen strings) cost more than reading it and folding it together. ``append(seq:recordedAt:payload:)``
/// reads the fold's fields with the checks of ``LedgerRecord/init(decoding:)`` but keeps only the fold's facts:
/// the strings it reads (tokens, identifiers) stay where they are in the payload, kept in the batch's
/// ``FoldTexts``, and are never built as `String`s. Operator records (corrections and links, which are rare) are
/// decoded whole. The fold gives exactly the answers it gives on the same records as ``LedgerEntry`` values.
///
/// A version 2 record holds the fold's fields first (`LedgerRecord+Binary.swift`): the decoder stops where they
/// end and leaves the others unread — the records of a log, which the writer checked read back whole
/// (``LedgerRecord/storableEncoding()``) and whose checksums are checked as they are read. A strict batch
/// (``init(strict:)``, for `ledger verify`) reads and checks every field, and refuses exactly the bytes the whole
/// decoder refuses, with the same error. A version 1 record is always read whole (its fold fields are spread
/// among the others).
public struct FoldRecords: Sendable {
    /// The facts of each record, in the order appended.
    var facts: [EntitlementFold.Fact] = []
    /// Every record's payload, back to back with the strings of records added whole, in ``texts``: record `i`
    /// is `starts[i]..<ends[i]` (the fold's last tie-break compares two encodings, and operator records are
    /// decoded whole from theirs when the fold asks). The facts' texts point into the same bytes.
    var texts = FoldTexts()
    private var starts: [Int] = []
    private var ends: [Int] = []
    /// The original transaction ids handed out in ``Named`` so far, as strings (a subject names few).
    private var named: [(text: FoldText, string: String)] = []

    /// Whether every field of every record is read and checked (see above).
    let strict: Bool

    /// An empty batch; a strict one checks every field of every record, as ``LedgerRecord/init(decoding:)`` does.
    public init(strict: Bool) {
        self.strict = strict
    }

    /// An empty batch, not strict (``ComponentBatch`` asks for an `init()`: a default argument would not do).
    public init() {
        self.init(strict: false)
    }

    /// How many records the batch holds.
    public var count: Int { facts.count }

    /// Whether the batch holds no record.
    public var isEmpty: Bool { facts.isEmpty }

    /// Empties the batch, keeping its storage for the next one.
    public mutating func removeAll() {
        facts.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        texts.removeAll()
        named.removeAll(keepingCapacity: true)
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
    /// - Throws: ``CoreError`` where ``LedgerRecord/init(decoding:)`` throws (for a batch that is not strict, only on
    ///   the fields it reads); the batch is unchanged then.
    public mutating func append(seq: UInt64, recordedAt: Instant, payload: UnsafeRawBufferPointer) throws(CoreError) {
        _ = try add(seq: seq, recordedAt: recordedAt, payload: payload)
    }

    /// ``append(seq:recordedAt:payload:)``, and the subscriptions the record names (a query follows them to the
    /// records of their owner).
    public mutating func appendNaming(seq: UInt64, recordedAt: Instant, payload: UnsafeRawBufferPointer)
        throws(CoreError) -> Named
    {
        let (subject, transaction) = try add(seq: seq, recordedAt: recordedAt, payload: payload)
        return Named(subject: subject.map { string(named: $0) }, transaction: transaction.map { string(named: $0) })
    }

    /// Decodes and adds a record; returns the texts of the original transaction ids it names.
    @inline(__always)
    private mutating func add(seq: UInt64, recordedAt: Instant, payload: UnsafeRawBufferPointer) throws(CoreError)
        -> (subject: FoldText?, transaction: FoldText?)
    {
        if facts.capacity == 0 { reserve() }
        let start = texts.byteCount
        let (subject, transaction) = try decodeFact(seq: seq, recordedAt: recordedAt, payload, position: facts.count)
        starts.append(start)
        ends.append(start + payload.count)
        return (subject, transaction)
    }

    /// An original transaction id as a string, built once per batch.
    private mutating func string(named text: FoldText) -> String {
        for known in named where texts.equal(known.text, text) { return known.string }
        let string = texts.string(text)
        if named.count < 16 { named.append((text, string)) }
        return string
    }

    /// Room for a subject's records, so that the first few dozen appends do not regrow the arrays.
    private mutating func reserve() {
        facts.reserveCapacity(64)
        starts.reserveCapacity(64)
        ends.reserveCapacity(64)
        texts.reserve(64 << 9)  // payloads are ~400 bytes
    }

    /// Adds a record already decoded whole (its payload is its encoding).
    public mutating func append(_ entry: LedgerEntry) {
        if facts.capacity == 0 { reserve() }
        let start = entry.record.encoded().withUnsafeBytes { texts.append($0) }
        starts.append(start)
        ends.append(texts.byteCount)
        facts.append(EntitlementFold.Fact(facts.count, entry, texts: &texts))
    }

    /// Calls `body` with record `index`'s payload.
    private func withPayload<Result>(_ index: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        texts.withBytes(from: starts[index], to: ends[index], body)
    }

    /// Record `index` decoded whole (the fold reads operator records so). It decoded once already; should it
    /// not now, an empty record stands in, never a trap.
    func record(_ index: Int) -> LedgerRecord {
        withPayload(index) { payload in
            (try? LedgerRecord(decoding: payload))
                ?? LedgerRecord(
                    environment: LedgerEnvironment(rawValue: ""), source: RecordSource(rawValue: 0),
                    idempotencyKey: texts.string(facts[index].key), subject: Subject())
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

    /// The owners the records' subjects name (a subscription's query reads their records too): each user once,
    /// and each account token outside the user scheme once. A notification's subject token is its transaction's;
    /// an operator record's is read from the record.
    public var subjectOwners: (users: [Int64], accounts: [String]) {
        var accounts: [String] = []
        for (index, fact) in facts.enumerated() where fact.userId == nil {
            let token = fact.hasOperatorPart ? record(index).subject.appAccountToken : fact.token.map(texts.string)
            if let token, !accounts.contains(token) { accounts.append(token) }
        }
        return (userIds, accounts)
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
