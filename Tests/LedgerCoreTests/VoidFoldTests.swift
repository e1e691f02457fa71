import LedgerCore
import LedgerTesting
import Testing

/// The fold's voids: the records a visible void names leave the fold's input, from the void's recording time on,
/// whatever the order of the input.
@Suite("Voids in the fold")
struct VoidFoldTests {
    let fold = EntitlementFold(catalog: .visla)

    /// A void of record `seq`, with the voided record's subject.
    static func void(_ seq: UInt64, subject: Subject) -> LedgerRecord {
        LedgerRecord(
            environment: .sandbox, source: .void, idempotencyKey: Voiding.idempotencyKey(voiding: seq),
            subject: subject, void: Voiding(seq: seq, reason: "by mistake", operatorName: "ops"))
    }

    /// User 9's monthly 2-device subscription (record 1), an orphan linked to user 9 (records 2, 3), an operator
    /// grant of 10 devices (record 4); then voids of the purchase (5, at `v`), the link (6, at `v + 1 day`) and the
    /// grant (7, at `v + 2 days`).
    static let v = Fixture.p.plus(days: 3)
    static let log: [LedgerEntry] = {
        var user = SubscriptionScript(originalTransactionId: "1000000091", userId: 9)
        var orphan = SubscriptionScript(originalTransactionId: "1000000092", userId: nil)
        var log = EntryLog()
        let purchase = log.append(user.subscribe(Fixture.monthly(2), at: Fixture.p))
        log.append(orphan.subscribe(Fixture.monthly(3), at: Fixture.p))
        let link = log.append(
            RecordBuilders.link(originalTransactionId: "1000000092", userId: 9, key: "link-92"),
            recordedAt: Fixture.p.plus(days: 1))
        let grant = log.append(
            RecordBuilders.grant(
                Subject(userId: 9), productId: Fixture.monthly(10), from: Fixture.p, until: Fixture.p.plus(days: 20),
                key: "grant-9"))
        log.append(void(purchase.seq, subject: purchase.record.subject), recordedAt: v)
        log.append(void(link.seq, subject: link.record.subject), recordedAt: v.plus(days: 1))
        log.append(void(grant.seq, subject: grant.record.subject), recordedAt: v.plus(days: 2))
        return log.entries
    }()

    /// As known at each side of each void, user 9's device limit at `Fixture.p + 2 days` (every record in effect).
    static let expected: [(knownAt: Instant?, deviceLimit: Int)] = [
        (v.plus(ms: -1), 2 + 3 + 10), (v, 3 + 10), (v.plus(days: 1).plus(ms: -1), 3 + 10), (v.plus(days: 1), 10),
        (v.plus(days: 2), 0), (nil, 0),
    ]

    @Test("a void takes its record out from its recording time on, at every valid time")
    func voidsCountFromTheirRecordingTime() {
        for (knownAt, limit) in Self.expected {
            let state = fold.state(of: .user(9), entries: Self.log, at: Fixture.p.plus(days: 2), knownAt: knownAt)
            #expect(state.deviceLimit == limit, "known at \(String(describing: knownAt))")
            var records = FoldRecords()
            for entry in Self.log { records.append(entry) }
            let folded = fold.state(of: .user(9), records: records, at: Fixture.p.plus(days: 2), knownAt: knownAt)
            #expect(folded == state, "the records decoded for the fold answer alike")
        }
        // Every valid time after the voids: nothing.
        for days in [0, 2, 10, 40] {
            let state = fold.state(of: .user(9), entries: Self.log, at: Fixture.p.plus(days: days), knownAt: nil)
            #expect(state.deviceLimit == 0 && state.subscriptions.isEmpty, "day \(days)")
        }
        // The voided link no longer makes the orphan user 9's: it is nobody's again.
        let orphan = fold.state(
            of: .originalTransaction("1000000092"), entries: Self.log, at: Fixture.p.plus(days: 2), knownAt: nil)
        #expect(orphan.userId == nil && orphan.deviceLimit == 3)
    }

    @Test("any order, with duplicates, gives the same answers")
    func orderIndependence() {
        var random = SeededRandom(seed: 2027)
        let expected = Self.expected.map { check in
            (
                fold.state(of: .user(9), entries: Self.log, at: Fixture.p.plus(days: 2), knownAt: check.knownAt),
                fold.subscriptions(in: Self.log, at: Fixture.p.plus(days: 2), knownAt: check.knownAt)
            )
        }
        for round in 0..<200 {
            var delivered = Self.log
            // Copies under other seqs (a redelivery): a copy of a voided record goes with it.
            for copy in 0..<Int.random(in: 0...3, using: &random) {
                let original = Self.log.randomElement(using: &random)!
                delivered.append(
                    LedgerEntry(
                        seq: original.seq + UInt64(1_000 * (copy + 1)), recordedAt: original.recordedAt,
                        record: original.record))
            }
            delivered.shuffle(using: &random)
            for (position, check) in Self.expected.enumerated() {
                let state = fold.state(
                    of: .user(9), entries: delivered, at: Fixture.p.plus(days: 2), knownAt: check.knownAt)
                #expect(state == expected[position].0, "round \(round)")
                #expect(state.deviceLimit == check.deviceLimit, "round \(round)")
                let all = fold.subscriptions(in: delivered, at: Fixture.p.plus(days: 2), knownAt: check.knownAt)
                #expect(all == expected[position].1, "round \(round)")
            }
        }
    }

    @Test("a void of a void has no effect, and neither does a void of a seq the input lacks")
    func voidOfAVoid() {
        var log = Self.log
        let first = log[4]
        log.append(
            LedgerEntry(
                seq: 8, recordedAt: Self.v.plus(days: 3), record: Self.void(first.seq, subject: first.record.subject)))
        log.append(
            LedgerEntry(
                seq: 9, recordedAt: Self.v.plus(days: 3), record: Self.void(99, subject: Subject(userId: 9))))
        for (knownAt, limit) in Self.expected {
            let state = fold.state(of: .user(9), entries: log, at: Fixture.p.plus(days: 2), knownAt: knownAt)
            #expect(state.deviceLimit == limit)
        }
    }

    @Test("a void's record encodes, decodes and reads back for the fold")
    func encoding() throws {
        for entry in Self.log {
            let bytes = entry.record.encoded()
            #expect(try LedgerRecord(decoding: bytes) == entry.record)
        }
        var moved = RecordBuilders.link(originalTransactionId: "1", userId: 8, key: "k")
        var previous = Subject()
        previous.appAccountToken = "00000007-0000-0000-0000-000000000000"
        previous.userId = 7
        moved.link?.previousOwner = previous
        #expect(try LedgerRecord(decoding: moved.encoded()) == moved)
        // A record without the new parts is encoded as before: parts 0b10_0000 for a link.
        let plain = RecordBuilders.link(originalTransactionId: "1", userId: 8, key: "k")
        #expect(plain.encoded()[1] == 0b10_0000)
        #expect(moved.encoded()[1] == 0b110_0000)
        #expect(Self.log[4].record.encoded()[1] == 0x80)
        #expect(Self.log[4].record.encoded()[2] == 0x01, "the parts varint of a void takes two bytes")
    }
}
