import LedgerCore
import LedgerJSON
import LedgerSystem
import LedgerTesting
import Synchronization

/// Distinct signed webhook bodies for the crash and load tests when `ledger simulate` is not at hand (or
/// its Apple-style duplicates are not wanted): `users` users each buy a monthly subscription and renew it,
/// one notification per period, signed by a fresh test PKI whose root is written as `trust-root.der`.
struct NotificationGenerator {
    var count: Int
    var users: Int
    /// Signing threads.
    var threads = 2

    /// 2024-01-01T00:00:00Z: the first purchase.
    static let start: Int64 = 1_704_067_200_000
    static let day: Int64 = 86_400_000

    /// Writes `notifications.jsonl` and `trust-root.der` into `directory`.
    func write(to directory: String) throws(TortureError) -> String {
        let pki: TestPKI
        do {
            pki = try TestPKI()
        } catch {
            throw TortureError("cannot make a test PKI: \(error)")
        }
        let bodies = Mutex([[UInt8]](repeating: [], count: count))
        let failure = Mutex<String?>(nil)
        let (count, threads) = (self.count, self.threads)
        let generator = self
        runThreads(threads) { thread in
            var index = thread
            while index < count {
                do {
                    let body = try generator.body(index, pki: pki)
                    bodies.withLock { $0[index] = body }
                } catch {
                    failure.withLock { $0 = "signing notification \(index): \(error)" }
                    return
                }
                index += threads
            }
        }
        if let failure = failure.withLock({ $0 }) { throw TortureError(failure) }
        var text: [UInt8] = []
        for body in bodies.withLock({ $0 }) {
            text += body
            text.append(10)
        }
        let fileSystem = PosixFileSystem()
        do {
            try fileSystem.createDirectories(directory)
            try fileSystem.writeFileDurably(directory + "/notifications.jsonl", text)
            try fileSystem.writeFileDurably(directory + "/trust-root.der", pki.rootDER)
        } catch {
            throw TortureError("cannot write into \(directory): \(error.message)")
        }
        return "generated \(count) distinct signed notifications for \(users) users in \(directory)"
    }

    /// Notification `index`: period `index / users` of user `index % users + 1` (a purchase, then renewals).
    func body(_ index: Int, pki: TestPKI) throws -> [UInt8] {
        let user = Int64(index % users + 1)
        let period = Int64(index / users)
        let otid = "7\(pad(user, 9))"
        let product = "com.visla.gps.monthly_\(user % 10 + 1)"
        let purchase = Self.start + (user % 28) * Self.day + period * 30 * Self.day
        let signed = purchase + 60_000
        let transaction = TestPKI.Payloads.transaction(
            originalTransactionId: otid, transactionId: "8\(pad(user, 9))\(pad(period, 4))", productId: product,
            purchaseDate: purchase, expiresDate: purchase + 30 * Self.day, signedDate: signed,
            appAccountToken: AccountToken.token(forUser: user))
        var renewal = TestPKI.Payloads.renewalInfo(originalTransactionId: otid, productId: product, signedDate: signed)
        if case .object(var fields) = renewal {
            fields["renewalDate"] = .integer(purchase + 30 * Self.day)
            renewal = .object(fields)
        }
        let payload = try pki.signedNotification(
            type: period == 0 ? "SUBSCRIBED" : "DID_RENEW", subtype: period == 0 ? "INITIAL_BUY" : nil,
            uuid: uuid(index), signedDate: signed, transaction: transaction, renewalInfo: renewal)
        return TestPKI.body(payload)
    }

    /// A version-4-shaped UUID that names the index.
    private func uuid(_ index: Int) -> String {
        let hex = String(index, radix: 16)
        return "5e7ea000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
    }

    private func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
