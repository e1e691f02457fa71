// ledger-signed-fixtures: signed App Store notifications from the test PKI, for scripts that drive `ledger serve`
// end to end (Scripts/postgres-two-servers) while `ledger simulate` is not there.
//
//   LedgerSignedFixtures OUT_DIR COUNT USERS
//
// Writes OUT_DIR/notifications.jsonl (COUNT webhook bodies, one a line: a SUBSCRIBED per user, then DID_RENEWs,
// each with its own notificationUUID) and OUT_DIR/trust-root.der (the test PKI's root, for --trust-root).
import LedgerCore
import LedgerJSON
import LedgerSystem
import LedgerTesting

#if canImport(Glibc)
    import Glibc
#endif

/// Prints a line on stderr and exits.
func fail(_ message: String, _ code: Int32) -> Never {
    let bytes = Array((message + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(code)
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[2]), let users = Int(arguments[3]), count > 0, users > 0 else {
    fail("usage: LedgerSignedFixtures OUT_DIR COUNT USERS", 64)
}
let directory = arguments[1]
let pki = TestPKI.shared
let day: Int64 = 86_400_000
var lines: [UInt8] = []
for n in 0..<count {
    let user = n % users + 1
    let period = Int64(n / users)
    let originalTransactionId = String(2_000_000_000_000_000 + user)
    let productId = "com.visla.gps.monthly_\(user % 10 + 1)"
    let signedDate = TestPKI.Payloads.signedDate + period * 30 * day + Int64(user) * 1_000
    let transaction = TestPKI.Payloads.transaction(
        originalTransactionId: originalTransactionId,
        transactionId: period == 0 ? originalTransactionId : String(3_000_000_000_000_000 + n),
        productId: productId, purchaseDate: signedDate, expiresDate: signedDate + 30 * day, signedDate: signedDate,
        appAccountToken: AccountToken.token(forUser: Int64(user)))
    let renewal = TestPKI.Payloads.renewalInfo(
        originalTransactionId: originalTransactionId, productId: productId, signedDate: signedDate)
    do {
        let signed = try pki.signedNotification(
            type: period == 0 ? "SUBSCRIBED" : "DID_RENEW", subtype: period == 0 ? "INITIAL_BUY" : nil,
            uuid: TestPKI.Payloads.uuid(n + 1), signedDate: signedDate, transaction: transaction,
            renewalInfo: renewal)
        lines += TestPKI.body(signed)
        lines.append(0x0A)
    } catch {
        fail("error: signing failed: \(error)", 70)
    }
}
do {
    let fileSystem = PosixFileSystem()
    try fileSystem.createDirectories(directory)
    try fileSystem.writeFileDurably(directory + "/notifications.jsonl", lines)
    try fileSystem.writeFileDurably(directory + "/trust-root.der", pki.rootDER)
} catch {
    fail("error: cannot write to \(directory): \(error)", 70)
}
