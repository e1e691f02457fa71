import LedgerCore
import LedgerCrypto
import LedgerJSON
import LedgerLog
import LedgerService
import LedgerStore
import LedgerTesting
import Synchronization
import Testing

/// The checks above the seam: the ledger's queries, known-at, and export/import, unchanged on every store.
extension Conformance {
    /// A clock the test sets.
    final class ManualClock: Sendable {
        private let now = Mutex<Int64>(0)
        func set(_ instant: Instant) { now.withLock { $0 = instant.milliseconds } }
        var function: @Sendable () -> Int64 { { [self] in now.withLock { $0 } } }
    }

    /// One subscription of user 42: bought on 1 January, refunded on 10 January, with its evidence.
    static func purchaseThenRefund() -> [(record: LedgerRecord, evidence: HashedBytes?)] {
        var script = SubscriptionScript(originalTransactionId: "2000000042", userId: 42)
        let bought = script.subscribe("com.visla.gps.monthly_3", at: RecordBuilders.instant("2026-01-01T00:00:00Z"))
        let refunded = script.refund(at: RecordBuilders.instant("2026-01-10T00:00:00Z"))
        return [bought, refunded].map { ($0, HashedBytes(Array("signed \($0.idempotencyKey)".utf8))) }
    }

    /// A ledger over a new store of `harness` holding ``purchaseThenRefund()``: the purchase recorded on 1 January,
    /// the refund on 10 January; the clock is the store's, to record more.
    static func recordedPurchaseThenRefund(_ harness: some StoreHarness) throws
        -> (store: any RecordStore, ledger: Ledger, clock: ManualClock)
    {
        let clock = ManualClock()
        let store = try harness.openWriter(environment: LedgerEnvironment.sandbox.rawValue, clock: clock.function)
        let ledger = Ledger(log: store)
        let items = purchaseThenRefund()
        clock.set(RecordBuilders.instant("2026-01-01T00:00:01Z"))
        _ = try ledger.append([items[0]])
        clock.set(RecordBuilders.instant("2026-01-10T00:00:01Z"))
        _ = try ledger.append([items[1]])
        return (store, ledger, clock)
    }

    /// `state --known-at` answers from the records the store had by then: the refund recorded on 10 January is
    /// unknown to a question asked as of 9 January.
    static func knownAtQueries(_ harness: some StoreHarness) throws {
        let (store, ledger, _) = try recordedPurchaseThenRefund(harness)
        defer { store.close() }
        let at = RecordBuilders.instant("2026-01-15T00:00:00Z")
        let before = try ledger.state(
            of: .user(42), at: at, knownAt: RecordBuilders.instant("2026-01-09T00:00:00Z"))
        #expect(before.status == .active)
        #expect(before.deviceLimit == 3)
        let now = try ledger.state(of: .user(42), at: at, knownAt: nil)
        #expect(now.status == .refunded)
        #expect(now.deviceLimit == 0)
        #expect(try ledger.history(of: .user(42)).count == 2)
        #expect(try ledger.history(of: .user(42), knownAt: RecordBuilders.instant("2026-01-09T00:00:00Z")).count == 1)
    }

    /// A void of the refund (recorded on 12 January) takes it out of the answers from then on: asked as of 11
    /// January the subscription is refunded, as of 12 January active again; a second void appends nothing, a void of
    /// the void and of a seq beyond the head are refused; the void exports and imports back.
    static func voids(_ harness: some StoreHarness) throws {
        let (store, ledger, clock) = try recordedPurchaseThenRefund(harness)
        defer { store.close() }
        clock.set(RecordBuilders.instant("2026-01-12T00:00:00Z"))
        #expect(
            try ledger.void(seq: 2, reason: "test refund", operatorName: "ops")
                == .appended(
                    seq: 3, recordedAt: RecordBuilders.instant("2026-01-12T00:00:00Z").milliseconds))
        #expect(try ledger.void(seq: 2, reason: "again", operatorName: "ops") == .duplicate(seq: 3))
        #expect(throws: ServiceError(.conflict, "")) { try ledger.void(seq: 3, reason: "r", operatorName: "o") }
        #expect(throws: ServiceError(.notFound, "")) { try ledger.void(seq: 4, reason: "r", operatorName: "o") }
        let at = RecordBuilders.instant("2026-01-15T00:00:00Z")
        let before = try ledger.state(of: .user(42), at: at, knownAt: RecordBuilders.instant("2026-01-11T23:59:59Z"))
        #expect(before.status == .refunded)
        let after = try ledger.state(of: .user(42), at: at, knownAt: nil)
        #expect(after.status == .active)
        #expect(after.deviceLimit == 3)
        #expect(try ledger.voids(about: .user(42), knownAt: nil) == [2: 3])
        let lines = try exportLines(ledger)
        #expect(lines.count == 3)
        let copyDirectory = TemporaryDirectory(prefix: "ledger-conformance-voids")
        let copy = Ledger(
            log: try EventLog.openWriter(at: copyDirectory.path, environment: LedgerEnvironment.sandbox.rawValue))
        defer { copy.close() }
        #expect(try copy.importLines(lines).appended == 3)
        #expect(copy.head.hash == ledger.head.hash)
        #expect(try copy.state(of: .user(42), at: at, knownAt: nil) == after)
    }

    /// `export` from the file log and `import` into this store give the same head hash, the same answers and the
    /// same evidence; exporting this store into a new file log gives it back again.
    static func exportImportKeepsTheHeadHash(_ harness: some StoreHarness) throws {
        let sourceDirectory = TemporaryDirectory(prefix: "ledger-conformance-source")
        let source = Ledger(
            log: try EventLog.openWriter(at: sourceDirectory.path, environment: LedgerEnvironment.sandbox.rawValue))
        defer { source.close() }
        _ = try source.append(purchaseThenRefund())
        let lines = try exportLines(source)
        #expect(lines.count == 2)

        // As `ledger import` does: the environment comes from the export.
        let environment = lines.first?["record"]?["environment"]?.string
        #expect(environment == LedgerEnvironment.sandbox.rawValue)
        let target = Ledger(log: try harness.openWriter(environment: environment, clock: steppingClock()))
        defer { target.close() }
        let imported = try target.importLines(lines)
        #expect(imported.appended == 2)
        #expect(try target.importLines(lines).alreadyKnown == 2, "import is idempotent")
        #expect(target.head.seq == source.head.seq)
        #expect(target.head.hash == source.head.hash)
        let at = RecordBuilders.instant("2026-01-05T00:00:00Z")
        #expect(
            try target.state(of: .user(42), at: at, knownAt: nil) == source.state(of: .user(42), at: at, knownAt: nil))
        #expect(try exportLines(target).map { $0.serialized() } == lines.map { $0.serialized() })

        let backDirectory = TemporaryDirectory(prefix: "ledger-conformance-back")
        let back = Ledger(log: try EventLog.openWriter(at: backDirectory.path, environment: environment))
        defer { back.close() }
        _ = try back.importLines(try exportLines(target))
        #expect(back.head.hash == source.head.hash)
    }

    /// Every export line of a ledger.
    static func exportLines(_ ledger: Ledger) throws -> [JSONValue] {
        var lines: [JSONValue] = []
        try ledger.forEachLogRecord(from: 1) { lines.append(try ledger.exportLine($0)) }
        return lines
    }
}
