import LedgerCrypto
import LedgerPostgres
import LedgerStore
import Testing

/// The PostgreSQL store's batched appends and streamed reads: a writer whose assumed head moved falls back to
/// the long way without a gap, keys with any characters survive the batched insert, walks stream on their own
/// connection, and evidence put for the next append is readable at once and committed with it.
@Suite("PostgreSQL store: batches and streams", .enabled(if: PostgresHarness.configured, PostgresHarness.skipReason))
struct PostgresStreamingTests {
    @Test func writersTakingTurnsKeepOneGapFreeChain() throws {
        let harness = try PostgresHarness()
        let first = try harness.openWriter()
        defer { first.close() }
        let second = try harness.openWriter()
        defer { second.close() }
        _ = try first.append([entry(1), entry(2)])
        // `first` assumes the head it left; `second` moved it, so `first` collides and takes the long way.
        _ = try second.append([entry(3)])
        let outcomes = try first.append([entry(4), entry(2), entry(5)])
        #expect(outcomes.map(\.seq) == [4, 2, 5])
        #expect(outcomes[1] == .duplicate(seq: 2))
        // A key stored by the other writer, with nothing else new: a duplicate, nothing appended.
        #expect(try second.append([entry(4)]) == [.duplicate(seq: 4)])
        #expect(try second.append([entry(6)]).map(\.seq) == [6])
        let report = try harness.verify(expectHead: first.head.hash)
        #expect(report.ok)
        #expect(report.headSeq == 6)
        #expect(first.head.hash == second.head.hash)
    }

    @Test func subjectKeysWithAnyCharactersSurviveTheBatchedInsert() throws {
        let harness = try PostgresHarness()
        let store = try harness.openWriter()
        defer { store.close() }
        let keys = ["quote\"d", "back\\slash", "{braces}", "comma,key", " spaced ", "NULL", "ü⚡️"]
        _ = try store.append([
            LogEntry(idempotencyKey: "odd", subjectKeys: keys, payload: [1, 2, 3]),
            LogEntry(idempotencyKey: "none", subjectKeys: [], payload: []),
        ])
        #expect(try store.record(seq: 1).subjectKeys == keys)
        #expect(try store.record(seq: 2).subjectKeys == [])
        var streamed: [[String]] = []
        try store.forEach(from: 1) { streamed.append($0.subjectKeys) }
        #expect(streamed == [keys, []])
        for key in keys { #expect(try store.seqs(forSubjectKey: key) == [1], "\(key)") }
        #expect(try harness.verify(expectHead: store.head.hash).ok)
    }

    @Test func aWalkMayUseTheStoreAndStopEarly() throws {
        let harness = try PostgresHarness()
        let store = try harness.openWriter()
        defer { store.close() }
        _ = try store.append((1...50).map { entry($0) })
        struct Stop: Error {}
        var seen: [UInt64] = []
        #expect(throws: Stop.self) {
            try store.forEach(from: 10) { record in
                // The walk has a connection of its own: the store answers inside it.
                let stored = try store.record(seq: record.seq)
                #expect(stored.hash == record.hash)
                seen.append(record.seq)
                if record.seq == 20 { throw Stop() }
            }
        }
        #expect(seen == Array(10...20))
        var count = 0
        try store.forEach(from: 1) { _ in count += 1 }
        #expect(count == 50)
        var payloads: [UInt64] = []
        try store.forEachPayload(forSubjectKey: entry(3).subjectKeys[0], skipping: [3]) { seq, _, payload in
            let stored = try store.record(seq: seq)
            #expect(Array(payload) == stored.payload)
            payloads.append(seq)
        }
        #expect(payloads == (1...50).filter { $0 % 7 == 3 && $0 != 3 }.map(UInt64.init))
        // Past the list the server is sent, the seqs are left out on this side: the same records.
        var skipping = Set<UInt64>(1_000...2_100)
        skipping.insert(10)
        var rest: [UInt64] = []
        try store.forEachPayload(forSubjectKey: entry(3).subjectKeys[0], skipping: skipping) { seq, _, _ in
            rest.append(seq)
        }
        #expect(rest == (1...50).filter { $0 % 7 == 3 && $0 != 10 }.map(UInt64.init))
    }

    @Test func evidenceForTheNextAppendIsReadableAndCommittedWithIt() throws {
        let harness = try PostgresHarness()
        let store = try harness.openWriter()
        defer { store.close() }
        let body = HashedBytes(Array("signed notification".utf8))
        try store.putEvidence(hashed: [body], durable: false)
        #expect(try store.evidence(body.sha256) == body.bytes)
        _ = try store.append([entry(1)], syncingEvidenceFirst: true)
        let reader = try harness.openReader()
        defer { reader.close() }
        #expect(try reader.evidence(body.sha256) == body.bytes)
    }

    @Test func rebuildingTheSubjectIndexGivesTheSameLookups() throws {
        let harness = try PostgresHarness()
        let store = try harness.openWriter()
        defer { store.close() }
        _ = try store.append((1...30).map { entry($0) })
        _ = try store.append([
            LogEntry(idempotencyKey: "twice", subjectKeys: ["user:1", "user:1", "otid:ü"], payload: [7])
        ])
        // The index is filled after the appends: complete before its rows are looked at.
        try #require(store as? PostgresStore).indexSubjects()
        let keys = ["user:1", "otid:ü", entry(5).subjectKeys[1], "user:6"]
        let before = try keys.map { try store.seqs(forSubjectKey: $0) }
        #expect(before[0].last == 31)
        let table = "\(harness.schema).record_subjects"
        // Where each row lies: a rebuild that rewrote a row would move it.
        let rows = "SELECT count(*)::text || ' ' || string_agg(ctid::text, ',' ORDER BY ctid) FROM \(table)"
        let whole = try harness.sql(rows)
        // Rows lost, and rows no record gives (a key of another record, a key of none).
        try harness.sql("DELETE FROM \(table) WHERE seq > 10")
        try harness.sql("INSERT INTO \(table) (subject_key, seq) VALUES ('user:1', 5), ('ghost', 3)")
        guard let rebuildable = store as? any RebuildableIndexes else {
            Issue.record("the PostgreSQL store does not rebuild its indexes")
            return
        }
        var reached: UInt64 = 0
        try rebuildable.rebuildIndexes { reached = $0 }
        #expect(reached == 31)
        #expect(try keys.map { try store.seqs(forSubjectKey: $0) } == before)
        #expect(try store.seqs(forSubjectKey: "ghost").isEmpty)
        let count = { (text: [[UInt8]]) in String(decoding: text[0], as: UTF8.self).split(separator: " ")[0] }
        #expect(count(try harness.sql(rows)) == count(whole), "exactly the rows the records give")
        // A row filed under another key: as many rows as the records give, but not theirs.
        try harness.sql("UPDATE \(table) SET subject_key = 'moved' WHERE subject_key = 'user:6'")
        try rebuildable.rebuildIndexes { reached = $0 }
        #expect(try store.seqs(forSubjectKey: "user:6") == before[3])
        #expect(try store.seqs(forSubjectKey: "moved").isEmpty)
        #expect(count(try harness.sql(rows)) == count(whole))
        // An index that is whole is left as it is: no row deleted, inserted or moved.
        let rebuilt = try harness.sql(rows)
        try rebuildable.rebuildIndexes { reached = $0 }
        #expect(try harness.sql(rows) == rebuilt)
        #expect(try store.append([entry(32)]).map(\.seq) == [32], "appends go on after a rebuild")
    }
}
