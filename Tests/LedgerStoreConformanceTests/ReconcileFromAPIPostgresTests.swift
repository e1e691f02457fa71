import LedgerCLI
import LedgerCrypto
import LedgerJSON
import LedgerSystem
import LedgerTesting
import Testing

/// `ledger reconcile --from-api --store postgres://…` against the fake App Store Server API: the missed
/// notifications land in PostgreSQL, exactly once.
@Suite("ledger reconcile --from-api --store")
struct ReconcileFromAPIPostgresTests {
    static let keyId = "2X9R4HXF34"
    static let issuerId = "57246542-96fe-1a63-e053-0824d011072a"

    /// Runs `ledger` in-process with captured output.
    func ledger(_ arguments: [String]) -> (code: Int32, out: String, err: String) {
        let capture = OutputCapture()
        let code = Terminal.$capture.withValue(capture) { LedgerMain.run(arguments, environment: [:]) }
        return (code, capture.standardOutput, capture.standardError)
    }

    @Test(.enabled(if: PostgresHarness.configured, PostgresHarness.skipReason))
    func appendsExactlyTheMissedNotificationsIntoPostgresThenNothing() throws {
        let harness = try PostgresHarness()
        let directory = TemporaryDirectory(prefix: "ledger-reconcile-postgres")
        let key = try ECPrivateKey(generating: .p256)
        let keyFile = directory.path + "/AuthKey.p8"
        let root = directory.path + "/root.der"
        try PosixFileSystem().writeFileDurably(keyFile, Array(key.pemRepresentation.utf8))
        try PosixFileSystem().writeFileDurably(root, TestPKI.shared.rootDER)
        let fixture = try APIHistoryFixture(count: 1000, subscriptions: 100)
        let fake = FakeAppStoreAPI(publicKey: key.publicKey, keyId: Self.keyId, issuerId: Self.issuerId)
        fixture.serve(from: fake)
        let url = try fake.start()
        defer { fake.stop() }
        let verifyFlags = ["--environment", "sandbox", "--bundle-id", TestPKI.bundleId, "--trust-root", root]
        // The store and the quarantine's directory (the data directory keeps the quarantine, as for ingest).
        let store = ["--store", harness.url, "--data", directory.path + "/data"]

        // 300 of 1,000 never reached the webhook: every third of the first 900.
        let delivered = fixture.items.enumerated().filter { $0.offset >= 900 || $0.offset % 3 != 0 }
        let input = directory.path + "/delivered.jsonl"
        try PosixFileSystem().writeFileDurably(
            input, Array(delivered.map { String(decoding: $0.element.body, as: UTF8.self) + "\n" }.joined().utf8))
        let ingested = ledger(["ingest"] + store + verifyFlags + [input])
        #expect(ingested.code == 0, "\(ingested.err)")
        #expect(JSONValue.parseOrNil(ledger(["digest", "--json"] + store).out)?["seq"]?.int64 == 700)

        let reconcile =
            ["reconcile", "--from-api", "--since", "2026-03-01T00:00:00Z", "--until", "2026-03-02T00:00:00Z"]
            + ["--key-file", keyFile, "--key-id", Self.keyId, "--issuer-id", Self.issuerId, "--api-base-url", url]
            + store + verifyFlags
        let first = ledger(reconcile)
        #expect(first.code == 0, "\(first.err)")
        #expect(first.out == "{\"appended\":300,\"alreadyKnown\":700,\"rejected\":0}\n")
        let head = ledger(["digest", "--json"] + store)
        #expect(JSONValue.parseOrNil(head.out)?["seq"]?.int64 == 1000, "\(head.err)")

        let second = ledger(reconcile)
        #expect(second.code == 0, "\(second.err)")
        #expect(second.out == "{\"appended\":0,\"alreadyKnown\":1000,\"rejected\":0}\n")
        #expect(ledger(["digest", "--json"] + store).out == head.out)
        let verified = ledger(["verify", "--store", harness.url])
        #expect(verified.code == 0, "\(verified.out)\(verified.err)")
        let state = ledger(["state", "--user", "42", "--json"] + store)
        #expect(JSONValue.parseOrNil(state.out)?["subscriptions"]?.array?.count == 100, "\(state.err)")
    }
}
