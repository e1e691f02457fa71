import LedgerStore
import LedgerSystem

/// Realistic records: a notificationUUID idempotency key, user / account / originalTransactionId subjects, and a
/// 300–400 byte payload (the size of a binary-encoded ledger record), generated deterministically.
struct Workload {
    let entries: [LogEntry]

    init(count: Int, seed: UInt64 = 0x5EED) {
        var random = SplitMix64(seed: seed)
        var entries: [LogEntry] = []
        entries.reserveCapacity(count)
        for n in 0..<count {
            let user = Int(random.next() % 50_000)
            let uuid = Workload.uuid(&random)
            let account = hex8(user)
            let size = 300 + Int(random.next() % 101)
            var payload = [UInt8](repeating: 0, count: size)
            for i in stride(from: 0, to: size, by: 8) {
                let word = random.next()
                for j in 0..<min(8, size - i) { payload[i + j] = UInt8(truncatingIfNeeded: word >> (8 * UInt64(j))) }
            }
            entries.append(
                LogEntry(
                    idempotencyKey: uuid,
                    subjectKeys: [
                        "user:\(user)", "account:\(account)-0000-0000-0000-000000000000",
                        "otid:\(2_000_000_000_000 + (user * 3 + n % 3))",
                    ],
                    payload: payload))
        }
        self.entries = entries
    }

    private static func uuid(_ random: inout SplitMix64) -> String {
        let high = random.next()
        let low = random.next()
        let hex = String(high, radix: 16) + String(low, radix: 16)
        let padded = String(repeating: "0", count: max(0, 32 - hex.count)) + hex
        let chars = Array(padded.prefix(32))
        return String(chars[0..<8]) + "-" + String(chars[8..<12]) + "-" + String(chars[12..<16]) + "-"
            + String(chars[16..<20]) + "-" + String(chars[20..<32])
    }
}

/// Eight lower-case hex digits.
private func hex8(_ value: Int) -> String {
    let hex = String(value, radix: 16)
    return String(repeating: "0", count: max(0, 8 - hex.count)) + hex
}
