import LedgerTesting
import Testing

@testable import LedgerCore

/// The fold brings a transaction's versions together by a 64-bit hash of its id and compares the ids themselves
/// only where two hashes tie: two different ids with one hash must still be two transactions, whatever order
/// their versions come in.
@Suite("Fold hash collisions")
struct FoldHashCollisionTests {
    let fold = EntitlementFold(catalog: .visla)

    /// The fold's hash of a text.
    static func hash(_ text: String) -> UInt64 {
        Array(text.utf8).withUnsafeBytes { EntitlementFold.Fact.hash($0) }
    }

    /// Two different 16-character printable ASCII ids with the same hash. The hash mixes eight bytes at a time,
    /// so two ids whose states after their first word differ by `d` collide when their second words differ by
    /// `d` too: search first words until `d` keeps the second word printable. The collision is then checked with
    /// the fold's own hash (a change to it fails here, it does not pass unnoticed).
    static func collidingIds() -> (String, String) {
        func state(afterFirstWord word: [UInt8]) -> UInt64 {
            let value = word.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
            var state = (0xCBF2_9CE4_8422_2325 ^ 16 ^ value) &* 0x100_0000_01B3
            state ^= state >> 29
            return state
        }
        let first = Array("20000001".utf8)
        let second = Array("23456789".utf8)
        let target = state(afterFirstWord: first)
        for counter in 0..<10_000_000 {
            var word = Array("3".utf8)
            var rest = counter
            for _ in 0..<7 {
                word.append(UInt8(ascii: "0") + UInt8(rest % 10))
                rest /= 10
            }
            let difference = target ^ state(afterFirstWord: word)
            var other: [UInt8] = []
            for index in 0..<8 {
                let byte = second[index] ^ UInt8(truncatingIfNeeded: difference >> (8 * UInt64(index)))
                guard byte > 0x20, byte < 0x7F else { break }
                other.append(byte)
            }
            guard other.count == 8 else { continue }
            return (String(decoding: first + second, as: UTF8.self), String(decoding: word + other, as: UTF8.self))
        }
        Issue.record("no colliding id found")
        return ("", "")
    }

    @Test("two transactions whose ids share a hash stay two, their versions interleaved in signing time")
    func collidingTransactionIds() throws {
        let (a, b) = Self.collidingIds()
        try #require(a != b && Self.hash(a) == Self.hash(b))
        let p = Fixture.p
        let product = "com.visla.gps.monthly_2"
        let token = AccountToken.token(forUser: 7)
        func version(_ id: String, from: Int, to: Int, signed: Int, revoked: Int? = nil) -> TransactionFacts {
            TransactionFacts(
                transactionId: id, originalTransactionId: a, productId: product, purchaseDate: p.plus(days: from),
                expiresDate: p.plus(days: to), appAccountToken: token, revocationDate: revoked.map { p.plus(days: $0) },
                revocationReason: revoked.map { _ in 0 }, signedDate: p.plus(days: signed))
        }
        // In signing time the versions alternate: a, b, a, b; every one lands on the same hash. The second version
        // of `a` moves its start (no store does; the fold is total all the same): its first version must not count.
        let versions = [
            version(a, from: 0, to: 30, signed: 0),
            version(b, from: 30, to: 60, signed: 30),
            version(a, from: 3, to: 30, signed: 35, revoked: 10),  // refunded
            version(b, from: 30, to: 90, signed: 36),  // extended
        ]
        var log = EntryLog()
        for (number, transaction) in versions.enumerated() {
            log.append(
                LedgerRecord(
                    environment: .sandbox, source: .transactionHistory, idempotencyKey: "collision-\(number)",
                    subject: Subject(originalTransactionId: a, appAccountToken: token), transaction: transaction))
        }
        let expected: [(day: Int, status: EntitlementStatus, expires: Int?)] = [
            (1, .none, nil), (5, .active, 10), (15, .refunded, 10), (45, .active, 90), (75, .active, 90),
            (95, .expired, 90),
        ]
        for order in [log.entries, log.entries.reversed(), [2, 0, 3, 1].map { log.entries[$0] }] {
            let records = try FoldRecordsTests.records(order)
            for (day, status, expires) in expected {
                for state in [
                    fold.state(of: .user(7), entries: order, at: p.plus(days: day), knownAt: nil),
                    fold.state(of: .user(7), records: records, at: p.plus(days: day), knownAt: nil),
                ] {
                    #expect(state.status == status, "day \(day)")
                    #expect(state.subscriptions.first?.expiresAt == expires.map { p.plus(days: $0) }, "day \(day)")
                }
            }
        }
    }
}
