import LedgerCore
import LedgerCrypto
import LedgerLog
import LedgerService
import LedgerStore
import LedgerSystem
import LedgerTesting
import Synchronization
import Testing

/// The storage contract (`RecordStore`'s documentation), checked the same way against every store. Each check
/// takes a fresh harness: its own directory or its own schema.
enum Conformance {
    /// Appended records come back with gap-free seqs from 1, their fields intact, indexed by subject.
    static func appendAndReadBack(_ harness: some StoreHarness) throws {
        let store = try harness.openWriter()
        let first = try store.append([entry(1), entry(2)])
        let second = try store.append([entry(3)])
        #expect((first + second).map(\.seq) == [1, 2, 3])
        #expect(first.allSatisfy { if case .appended = $0 { true } else { false } })
        let record = try store.record(seq: 2)
        #expect(record.idempotencyKey == "notification-2")
        #expect(record.subjectKeys == entry(2).subjectKeys)
        #expect(record.payload == entry(2).payload)
        if case .appended(_, let time) = first[1] { #expect(record.recordedAt == time) }
        var scanned: [UInt64] = []
        try store.forEach(from: 2) { scanned.append($0.seq) }
        #expect(scanned == [2, 3])
        #expect(try store.seqs(forSubjectKey: "user:2") == [2])
        #expect(try store.seqs(forSubjectKey: "user:99").isEmpty)
        #expect(store.head.seq == 3)
        #expect(store.head.hash == (try store.record(seq: 3)).hash)
        #expect(store.environment == "sandbox")
        #expect(throws: LogError(.notFound, "")) { try store.record(seq: 4) }
        let head = store.head
        store.close()
        let reader = try harness.openReader()
        defer { reader.close() }
        #expect(reader.head.seq == head.seq && reader.head.hash == head.hash)
        #expect(reader.headTime == (try reader.record(seq: 3)).recordedAt)
        #expect(throws: LogError(.notWritable, "")) { try reader.append([entry(4)]) }
    }

    /// The same records at the same times give the same chain as the file log: every hash, and the head.
    static func chainMatchesTheFileLog(_ harness: some StoreHarness) throws {
        let times: [Int64] = [1_767_225_600_000, 1_767_225_600_500, 1_767_225_600_500, 1_767_225_601_000]
        let entries = times.enumerated().map { entry($0.offset, time: $0.element) }
        let store = try harness.openWriter()
        defer { store.close() }
        _ = try store.append(Array(entries.prefix(2)))
        _ = try store.append(Array(entries.dropFirst(2)))
        let reference = TemporaryDirectory(prefix: "ledger-conformance-reference")
        let log = try EventLog.openWriter(at: reference.path, environment: "sandbox")
        defer { log.close() }
        _ = try log.append(entries)
        for seq in UInt64(1)...UInt64(entries.count) {
            #expect(try store.record(seq: seq).hash == (try log.record(seq: seq)).hash, "record \(seq)")
        }
        #expect(store.head.hash == log.head.hash)
        #expect(store.head.hash.count == 32)
    }

    /// A key already stored, or earlier in the same call, is a duplicate: reported with the stored seq, never
    /// stored twice, also after reopening.
    static func idempotency(_ harness: some StoreHarness) throws {
        let store = try harness.openWriter()
        let a = entry(1, key: "a")
        let b = entry(2, key: "b")
        let outcomes = try store.append([a, b, a])
        #expect(outcomes.map(\.seq) == [1, 2, 1])
        #expect(outcomes[2] == .duplicate(seq: 1))
        let again = try store.append([entry(3, key: "b"), entry(4, key: "c")])
        #expect(again[0] == .duplicate(seq: 2))
        #expect(again[1].seq == 3)
        store.close()
        let reopened = try harness.openWriter()
        defer { reopened.close() }
        #expect(try reopened.append([a]) == [.duplicate(seq: 1)])
        #expect(try reopened.seq(forIdempotencyKey: "c") == 3)
        #expect(try reopened.seq(forIdempotencyKey: "never") == nil)
        #expect(reopened.head.seq == 3)
    }

    /// Many threads (over several writer handles where the store allows it) append overlapping keys at once:
    /// every key is stored once, seqs are gap-free, every caller learns the same seq for a key, the chain holds.
    static func concurrentAppendsStayGapFree(_ harness: some StoreHarness) throws {
        let writers = try (0..<harness.concurrentWriters).map { _ in try harness.openWriter() }
        defer { for writer in writers { writer.close() } }
        let keys = 60
        let threads = 6
        let seen = Mutex<[String: Set<UInt64>]>([:])
        let failures = Mutex<[String]>([])
        runThreads(threads) { thread in
            let store = writers[thread % writers.count]
            for step in stride(from: 0, to: keys, by: 2) {
                let batch = (0..<2).map { offset in
                    let n = (thread * 17 + step + offset) % keys
                    return entry(n, key: "key-\(n)")
                }
                do {
                    let outcomes = try store.append(batch)
                    seen.withLock { seen in
                        for (item, outcome) in zip(batch, outcomes) {
                            seen[item.idempotencyKey, default: []].insert(outcome.seq)
                        }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let reader = try harness.openReader()
        defer { reader.close() }
        var seqs: [UInt64] = []
        var stored = Set<String>()
        try reader.forEach(from: 1) { record in
            seqs.append(record.seq)
            stored.insert(record.idempotencyKey)
        }
        #expect(seqs == Array(1...UInt64(keys)))
        #expect(stored.count == keys)
        #expect(seen.withLock { $0.values.allSatisfy { $0.count == 1 } })
        #expect(try harness.verify(expectHead: nil).ok)
    }

    /// `verify` passes on an intact store, and names the first rewritten record even when the attacker fixed
    /// every checksum but the chain; a pinned head that differs fails.
    static func verifyFindsRewrites(_ harness: some StoreHarness) throws {
        let store = try harness.openWriter()
        for n in 1...5 { _ = try store.append([entry(n)]) }
        let head = store.head
        store.close()
        let intact = try harness.verify(expectHead: head.hash)
        #expect(intact.ok)
        #expect(intact.headSeq == 5 && intact.headHash == head.hash)
        let other = try harness.verify(expectHead: [UInt8](repeating: 7, count: 32))
        #expect(other.problem?.kind == .headMismatch)
        try harness.tamper(seq: 2)
        let report = try harness.verify(expectHead: nil)
        #expect(report.problem?.kind == .chainBroken)
        #expect(report.problem?.seq == 2)
        #expect(report.headSeq == 1)
    }

    /// `verify` reads every payload with the reader it is given and names the first it cannot read, with the count,
    /// once the chain is sound; without a reader, or when every payload reads, the store verifies.
    static func verifyFindsUnreadableRecords(_ harness: some StoreHarness) throws {
        let store = try harness.openWriter()
        for n in 1...6 { _ = try store.append([entry(n)]) }
        store.close()
        // Records 3 and 5 are those this reader refuses (their payloads start with the byte their seq gives them).
        let refusing: RecordReader = { payload in
            [entry(3).payload[0], entry(5).payload[0]].contains(payload[0]) ? "no such record (\(payload.count))" : nil
        }
        let report = try harness.verify(expectHead: nil, readRecord: refusing)
        #expect(report.problem?.kind == .unreadableRecord)
        #expect(report.problem?.seq == 3)
        #expect(report.problem?.message.contains("(2 records in all): no such record (203)") == true)
        #expect(report.headSeq == 6)
        #expect(try harness.verify(expectHead: nil).ok)
        #expect(try harness.verify(expectHead: nil, readRecord: { _ in nil }).ok)
    }

    /// The store is bound to one environment at its first append; the other one is refused, and a store never
    /// written refuses an append that names no environment.
    static func environmentBinding(_ harness: some StoreHarness) throws {
        let unbound = try harness.openWriter(environment: nil, clock: steppingClock())
        #expect(throws: LogError(.environmentUnknown, "")) { try unbound.append([entry(1)]) }
        unbound.close()
        let sandbox = try harness.openWriter()
        _ = try sandbox.append([entry(1)])
        sandbox.close()
        #expect(throws: LogError(.environmentMismatch, "")) {
            let production = try harness.openWriter(environment: "production", clock: steppingClock())
            defer { production.close() }
            _ = try production.append([entry(2)])
        }
        let reader = try harness.openReader()
        defer { reader.close() }
        #expect(reader.environment == "sandbox")
        #expect(reader.head.seq == 1)
    }

    /// The store records the app identity its writer names: with the first append, or (a store bound before
    /// identities were recorded) with the next append that names one; a writer of another app is refused and
    /// appends nothing; an App Apple ID the identity lacks is added.
    static func appBinding(_ harness: some StoreHarness) throws {
        let anonymous = try harness.openWriter()
        _ = try anonymous.append([entry(1)])
        #expect(anonymous.binding.app == nil)
        anonymous.close()
        let sandboxApp = AppIdentity(bundleId: "com.visla.gps")
        let named = try harness.openWriter(environment: "sandbox", app: sandboxApp)
        #expect(named.binding.app == sandboxApp, "the identity it binds with its next append")
        _ = try named.append([entry(2)])
        named.close()
        let between = try harness.openReader()
        #expect(between.binding.app == sandboxApp)
        between.close()
        let full = AppIdentity(bundleId: "com.visla.gps", appAppleId: 1_234_567_890)
        let adding = try harness.openWriter(environment: "sandbox", app: full)
        _ = try adding.append([entry(3)])
        adding.close()
        for other in [
            AppIdentity(bundleId: "com.some.thing"), AppIdentity(bundleId: "com.visla.gps", appAppleId: 42),
        ] {
            #expect(throws: LogError(.appMismatch, "")) {
                let writer = try harness.openWriter(environment: "sandbox", app: other)
                defer { writer.close() }
                _ = try writer.append([entry(4)])
            }
        }
        let reader = try harness.openReader()
        defer { reader.close() }
        #expect(reader.binding.app == full)
        #expect(reader.head.seq == 3, "nothing appended by a writer of another app")
        #expect(try harness.verify(expectHead: nil).ok)
    }

    /// Evidence is content-addressed and reads back; a derived file is used only while it matches the chain.
    static func evidenceAndDerivedFiles(_ harness: some StoreHarness) throws {
        let store = try harness.openWriter()
        defer { store.close() }
        let first = Array("{\"signedPayload\":\"one\"}".utf8)
        let second = Array("{\"signedPayload\":\"two\"}".utf8)
        let digests = try store.putEvidence(batch: [first, second, first])
        #expect(digests == [SHA256.hash(first), SHA256.hash(second), SHA256.hash(first)])
        #expect(try store.evidence(digests[1]) == second)
        #expect(try store.evidence([UInt8](repeating: 1, count: 32)) == nil)
        _ = try store.append([entry(1), entry(2)])
        let head = store.head
        let derived = try #require(store as? any DerivedFiles, "every store keeps derived files")
        try derived.writeDerived("projection.json", Array("{}".utf8), coveredSeq: head.seq, headHash: head.hash)
        #expect(derived.readDerived("projection.json")?.bytes == Array("{}".utf8))
        _ = try store.append([entry(3)])
        #expect(derived.readDerived("projection.json")?.coveredSeq == 2, "an older snapshot of the same chain")
        try derived.writeDerived("stale", [1], coveredSeq: 2, headHash: [UInt8](repeating: 0, count: 32))
        #expect(derived.readDerived("stale") == nil, "a snapshot of another history")
        #expect(derived.readDerived("missing") == nil)
    }

    /// A writer that dies mid-append loses only what it had not acknowledged: after a restart the store holds
    /// exactly the acknowledged records, the next append continues without a gap, and the chain verifies.
    static func crashLosesOnlyTheUnacknowledged(_ harness: some StoreHarness) throws {
        let store = try harness.openWriter()
        let acknowledged = try store.append((1...10).map { entry($0) })
        #expect(acknowledged.last?.seq == 10)
        let interrupted = (11...15).map { entry($0) }
        try harness.crashDuringAppend(store, interrupted)
        let restarted = try harness.openWriter()
        defer { restarted.close() }
        #expect(restarted.head.seq == 10)
        #expect(try restarted.seq(forIdempotencyKey: "notification-11") == nil)
        let retried = try restarted.append(interrupted)
        #expect(retried.map(\.seq) == Array(11...15))
        #expect(try harness.verify(expectHead: nil).ok)
    }
}
