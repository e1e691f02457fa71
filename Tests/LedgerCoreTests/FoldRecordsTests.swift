import LedgerTesting
import Testing

@testable import LedgerCore

/// ``FoldRecords`` decodes only what the fold reads: the fold must answer exactly as it does on whole entries,
/// and the decoder must refuse exactly the bytes ``LedgerRecord/init(decoding:)`` refuses.
@Suite("Fold records")
struct FoldRecordsTests {
    let fold = EntitlementFold(catalog: .visla)

    /// The entries as the log would hand them over: each record's encoding, decoded for the fold; records of
    /// odd seqs in version 1 of the encoding when `mixed` (a log written before version 2 and after).
    static func records(_ entries: [LedgerEntry], mixed: Bool = true) throws -> FoldRecords {
        var records = FoldRecords()
        for entry in entries {
            let bytes = mixed && entry.seq % 2 == 1 ? entry.record.encodedVersion1() : entry.record.encoded()
            try bytes.withUnsafeBytes { payload in
                try records.append(seq: entry.seq, recordedAt: entry.recordedAt, payload: payload)
            }
        }
        return records
    }

    @Test("each lifecycle: the same states and projections as from whole entries", arguments: Lifecycle.all)
    func lifecycles(_ lifecycle: Lifecycle) throws {
        let records = try Self.records(lifecycle.entries)
        #expect(records.count == lifecycle.entries.count)
        for check in lifecycle.checks {
            let query = check.query ?? lifecycle.query
            #expect(
                fold.state(of: query, records: records, at: check.at, knownAt: check.knownAt)
                    == fold.state(of: query, entries: lifecycle.entries, at: check.at, knownAt: check.knownAt),
                "\(lifecycle.name) at \(check.at)")
            #expect(
                fold.subscriptions(in: records, at: check.at, knownAt: check.knownAt)
                    == fold.subscriptions(in: lifecycle.entries, at: check.at, knownAt: check.knownAt))
        }
    }

    @Test("each lifecycle, any order, with duplicates: the same answers for random instants", arguments: Lifecycle.all)
    func lifecyclesShuffled(_ lifecycle: Lifecycle) throws {
        var random = SeededRandom(seed: UInt64(lifecycle.name.utf8.count) &* 104_729)
        let instants = lifecycle.entries.flatMap { [$0.recordedAt, $0.effectiveAt] } + lifecycle.checks.map(\.at)
        for round in 0..<40 {
            // Apple retries deliveries: records appended again later, under higher sequence numbers.
            let delivered = lifecycle.redelivered(using: &random)
            let records = try Self.records(delivered)
            for _ in 0..<8 {
                let at = instants.randomElement(using: &random)!.plus(ms: Int64.random(in: -2...2, using: &random))
                let knownAt = random.next() % 3 == 0 ? nil : instants.randomElement(using: &random)
                let query = lifecycle.checks.randomElement(using: &random)?.query ?? lifecycle.query
                #expect(
                    fold.state(of: query, records: records, at: at, knownAt: knownAt)
                        == fold.state(of: query, entries: delivered, at: at, knownAt: knownAt),
                    "\(lifecycle.name) round \(round) at \(at) known at \(String(describing: knownAt))")
                #expect(
                    fold.subscriptions(in: records, at: at, knownAt: knownAt)
                        == fold.subscriptions(in: delivered, at: at, knownAt: knownAt))
            }
        }
    }

    @Test("random records of every shape, any order: the same answers for random queries and instants")
    func randomRecords() throws {
        var generator = RandomRecords(seed: 31)
        for round in 0..<300 {
            var entries: [LedgerEntry] = []
            let count = Int.random(in: 1...30, using: &generator.random)
            for index in 0..<count {
                var record = generator.record()
                // Make records meet: shared subscriptions, users and owners, operator records among them.
                if generator.chance(60) { record.subject.originalTransactionId = "2000000912345678" }
                if generator.chance(40) { record.transaction?.originalTransactionId = "2000000912345678" }
                if generator.chance(30) { record.subject.userId = 42 }
                if generator.chance(20) {
                    record.source = [.correction, .link, .notification].randomElement(using: &generator.random)!
                }
                let seq = UInt64(index + 1) + (generator.chance(10) ? 0 : UInt64(round * 100))
                let recordedAt = Instant(
                    milliseconds: Int64.random(in: 1_700_000_000_000...1_800_000_000_000, using: &generator.random))
                entries.append(LedgerEntry(seq: seq, recordedAt: recordedAt, record: record))
            }
            entries.shuffle(using: &generator.random)
            let records = try Self.records(entries)
            // Several instants at once (a chart's samples, one plan for them all) answer as one at a time.
            let instants = (0..<8).map { _ in generator.instant() }
            for query in [SubjectQuery.user(42), .originalTransaction("2000000912345678")] {
                #expect(
                    fold.states(of: query, entries: entries, at: instants, knownAt: nil)
                        == instants.map { fold.state(of: query, entries: entries, at: $0, knownAt: nil) },
                    "round \(round)")
            }
            for _ in 0..<6 {
                let at = generator.instant()
                let knownAt = generator.chance(30) ? nil : entries.randomElement(using: &generator.random)?.recordedAt
                let queries: [SubjectQuery] = [
                    .user(42), .originalTransaction("2000000912345678"),
                    .account("0000002A-0000-0000-0000-000000000000"),
                    .originalTransaction(
                        entries.randomElement(using: &generator.random)!.record.subject
                            .originalTransactionId ?? ""),
                ]
                for query in queries {
                    #expect(
                        fold.state(of: query, records: records, at: at, knownAt: knownAt)
                            == fold.state(of: query, entries: entries, at: at, knownAt: knownAt), "round \(round)")
                }
                #expect(
                    fold.subscriptions(in: records, at: at, knownAt: knownAt)
                        == fold.subscriptions(in: entries, at: at, knownAt: knownAt), "round \(round)")
                // Another order of the same records: the same answers, the same history.
                let reordered = try Self.records(entries.shuffled(using: &generator.random))
                #expect(
                    fold.subscriptions(in: reordered, at: at, knownAt: knownAt)
                        == fold.subscriptions(in: records, at: at, knownAt: knownAt), "round \(round)")
                for query in queries {
                    #expect(
                        fold.state(of: query, records: reordered, at: at, knownAt: knownAt)
                            == fold.state(of: query, records: records, at: at, knownAt: knownAt), "round \(round)")
                    #expect(
                        fold.history(of: query, entries: entries.reversed(), knownAt: knownAt).map(\.seq)
                            == fold.history(of: query, entries: entries, knownAt: knownAt).map(\.seq),
                        "round \(round)")
                }
            }
        }
    }

    @Test("a strict decoder refuses exactly what the whole decoder refuses, with the same error, in both versions")
    func sameVerdicts() {
        var generator = RandomRecords(seed: 37)
        var refused = 0
        for round in 0..<20_000 {
            let record = generator.record()
            var bytes = round % 3 == 0 ? record.encodedVersion1() : record.encoded()
            if round % 4 == 0 {
                bytes = Array(bytes[0..<Int.random(in: 0...bytes.count, using: &generator.random)])
            } else if round % 4 != 1 {
                for _ in 0..<Int.random(in: 1...4, using: &generator.random) {
                    let position = Int.random(in: 0..<bytes.count, using: &generator.random)
                    bytes[position] ^= UInt8(1) << UInt8.random(in: 0...7, using: &generator.random)
                }
            }
            let whole = Result { () throws(CoreError) in try LedgerRecord(decoding: bytes) }
            var records = FoldRecords(strict: true)
            // The standard library's buffer accessors rethrow untyped errors: carry a Result out.
            let fast = bytes.withUnsafeBytes { payload in
                Result { () throws(CoreError) in
                    try records.append(seq: 1, recordedAt: Instant(milliseconds: 0), payload: payload)
                }
            }
            switch (whole, fast) {
            case (.success, .success):
                #expect(records.count == 1)
            case (.failure(let expected), .failure(let got)):
                refused += 1
                #expect(got.code == expected.code && got.message == expected.message, "round \(round)")
                #expect(records.isEmpty)
            default:
                Issue.record("round \(round): whole decoder \(whole), fold decoder \(fast)")
            }
        }
        #expect(refused > 1_000)
    }

    @Test(
        "a batch that is not strict reads a version 2 record's fold fields alone, with the strict batch's verdicts on them"
    )
    func foldFieldsAlone() throws {
        var generator = RandomRecords(seed: 43)
        var refused = 0
        var unread = 0
        for round in 0..<20_000 {
            let record = generator.record()
            let bytes = record.encoded()
            var damaged = bytes
            let position = Int.random(in: 0..<bytes.count, using: &generator.random)
            damaged[position] ^= UInt8(1) << UInt8.random(in: 0...7, using: &generator.random)
            if round % 3 == 0 { damaged = Array(bytes[0..<Int.random(in: 0...bytes.count, using: &generator.random)]) }
            let (lenient, fast) = Self.append(damaged, strict: false)
            let (strict, checked) = Self.append(damaged, strict: true)
            switch (checked, fast) {
            case (.success, .success):
                #expect(String(describing: lenient.facts) == String(describing: strict.facts), "round \(round)")
            case (.failure(let expected), .failure(let got)):
                // It reads a prefix of what the strict batch reads, in the same order: the same first error.
                refused += 1
                #expect(got.code == expected.code && got.message == expected.message, "round \(round)")
                #expect(lenient.isEmpty)
            case (.failure, .success):
                break  // damage it did not read (see below)
            case (.success, .failure(let error)):
                Issue.record("round \(round): refused by the batch that is not strict alone: \(error)")
            }
            // A byte changed past the fold's fields (in the evidence or the other fields) is not read: the same
            // facts as the record's own (operator records, read whole, aside).
            let foldEnd = Self.foldFieldsEnd(bytes)
            let isOperator =
                record.correction != nil || record.link != nil || record.void != nil || record.source == .correction
                || record.source == .link || record.source == .void
            guard foldEnd < bytes.count, round % 3 != 0, !isOperator else { continue }
            var beyond = bytes
            beyond[Int.random(in: foldEnd..<bytes.count, using: &generator.random)] ^= 0xFF
            let (original, _) = Self.append(bytes, strict: false)
            let (changed, result) = Self.append(beyond, strict: false)
            if case .failure(let error) = result { Issue.record("round \(round): \(error)") }
            #expect(String(describing: changed.facts) == String(describing: original.facts), "round \(round)")
            unread += 1
        }
        #expect(refused > 1_000)
        #expect(unread > 1_000)
    }

    /// A batch of one record's bytes, and how appending them went.
    static func append(_ bytes: [UInt8], strict: Bool) -> (FoldRecords, Result<Void, CoreError>) {
        var records = FoldRecords(strict: strict)
        let result = bytes.withUnsafeBytes { payload in
            Result { () throws(CoreError) in
                try records.append(seq: 1, recordedAt: Instant(milliseconds: 0), payload: payload)
            }
        }
        return (records, result)
    }

    /// The offset at which a version 2 record's fold fields end (its evidence, or its other fields, start).
    static func foldFieldsEnd(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { payload in
            var reader = FactReader(payload)
            _ = try? reader.primitives.readByte()
            let parts = (try? reader.primitives.readVarint()) ?? 0
            _ = try? reader.readRange()
            _ = try? reader.primitives.readByte()
            _ = try? reader.readRange()
            let mask = (try? reader.primitives.readVarint()) ?? 0
            if mask & 1 != 0 { _ = try? reader.readRange() }
            if mask & 2 != 0 { _ = try? reader.readRange() }
            if mask & 4 != 0 { _ = try? reader.primitives.readSigned() }
            if parts & 1 != 0 { _ = try? NotificationPart(&reader) }
            if parts & 2 != 0 { _ = try? TransactionPart(&reader) }
            if parts & 4 != 0 { _ = try? RenewalPart(&reader) }
            return reader.primitives.offset
        }
    }

    @Test("users and the next change are those of the whole records")
    func usersAndNextChange() throws {
        var generator = RandomRecords(seed: 41)
        for _ in 0..<500 {
            let entries = (0..<Int.random(in: 1...12, using: &generator.random)).map { index in
                LedgerEntry(seq: UInt64(index + 1), recordedAt: generator.instant(), record: generator.record())
            }
            let records = try Self.records(entries)
            var users: [Int64] = []
            for entry in entries {
                if let user = entry.record.subject.userId, !users.contains(user) { users.append(user) }
            }
            #expect(records.userIds == users)
            let at = generator.instant()
            #expect(records.nextChange(after: at) == Self.nextChange(entries, after: at))
        }
    }

    /// The earliest instant after `at` any whole record names (the projection table's rule).
    static func nextChange(_ entries: [LedgerEntry], after at: Instant) -> Instant? {
        var instants: [Instant?] = []
        for entry in entries {
            let record = entry.record
            instants.append(record.notification?.signedDate)
            if let transaction = record.transaction {
                instants += [
                    transaction.purchaseDate, transaction.expiresDate, transaction.revocationDate,
                    transaction.signedDate,
                ]
            }
            if let renewal = record.renewal {
                instants += [renewal.signedDate, renewal.gracePeriodExpiresDate, renewal.renewalDate]
            }
            switch record.correction?.action {
            case .grant(_, let from, let until): instants += [from, until]
            case .revoke(let from): instants.append(from)
            case nil: break
            }
        }
        return instants.compactMap { $0 }.filter { $0 > at }.min()
    }
}
