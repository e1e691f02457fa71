import LedgerCrypto
import LedgerJSON
import LedgerTesting
import Testing

/// `ledger reconcile --from-api` against the fake App Store Server API.
@Suite struct ReconcileFromAPITests {
    static let keyId = "2X9R4HXF34"
    static let issuerId = "57246542-96fe-1a63-e053-0824d011072a"
    static let key = try! ECPrivateKey(generating: .p256)
    static let fixture = try! APIHistoryFixture(count: 1000, subscriptions: 100)

    /// A workspace with the key file on disk and a fake serving `fixture`.
    struct APIWorkspace {
        let workspace = Workspace()
        let fake = FakeAppStoreAPI(
            publicKey: ReconcileFromAPITests.key.publicKey, keyId: ReconcileFromAPITests.keyId,
            issuerId: ReconcileFromAPITests.issuerId)
        let url: String

        init(serving items: [APIHistoryFixture.Item] = ReconcileFromAPITests.fixture.items) throws {
            write(workspace.directory.path + "/AuthKey.p8", ReconcileFromAPITests.key.pemRepresentation)
            let history = APIHistoryFixture(items: items)
            history.serve(from: fake)
            url = try fake.start()
        }

        var keyFile: String { workspace.directory.path + "/AuthKey.p8" }

        /// `reconcile --from-api` over the whole fixture's window.
        func reconcile(_ extra: [String] = [], keyFile: String? = nil, url: String? = nil) -> CommandResult {
            ledger(
                ["reconcile", "--from-api", "--since", "2026-03-01T00:00:00Z", "--until", "2026-03-02T00:00:00Z"]
                    + ["--key-file", keyFile ?? self.keyFile, "--key-id", ReconcileFromAPITests.keyId]
                    + ["--issuer-id", ReconcileFromAPITests.issuerId, "--api-base-url", url ?? self.url]
                    + ["--data", workspace.data] + workspace.verifyFlags + extra)
        }

        /// Ingests these notifications as if the webhook had received them.
        func ingest(_ items: ArraySlice<APIHistoryFixture.Item>) {
            let path = workspace.file(
                "delivered.jsonl", items.map { String(decoding: $0.body, as: UTF8.self) })
            let result = ledger(["ingest", "--data", workspace.data] + workspace.verifyFlags + [path])
            #expect(result.code == 0, "\(result.err)")
        }

        func digest() -> JSONValue? { ledger(["digest", "--data", workspace.data, "--json"]).json }
    }

    @Test func recoversExactlyTheMissedNotificationsThenNothing() throws {
        let space = try APIWorkspace()
        defer { space.fake.stop() }
        let items = Self.fixture.items
        // 300 never reached the webhook: every third of the first 900.
        var delivered: [APIHistoryFixture.Item] = []
        for (index, item) in items.enumerated() where index >= 900 || index % 3 != 0 { delivered.append(item) }
        #expect(delivered.count == 700)
        space.ingest(delivered[...])
        // A 429 with Retry-After, a 503 and an expired token along the way.
        space.fake.schedule(.rateLimited(retryAfter: 1), atRequest: 2)
        space.fake.schedule(.serverError(503), atRequest: 4)
        space.fake.schedule(.expireToken, atRequest: 6)
        let first = space.reconcile()
        #expect(first.code == 0, "\(first.err)")
        #expect(first.out == "{\"appended\":300,\"alreadyKnown\":700,\"rejected\":0}\n")
        #expect(space.fake.statuses.contains(429))
        #expect(space.fake.statuses.contains(503))
        #expect(space.fake.statuses.contains(401))
        // Each wait is announced, so that it is not taken for a hang (the 401 is renewed at once, unannounced).
        let retries = first.err.split(separator: "\n").filter { $0.hasPrefix("warning: ") && $0.contains("retrying") }
        #expect(retries.count == 2, "\(first.err)")
        #expect(retries.first?.hasSuffix("retrying in 1.0 s (attempt 2 of 6)") == true, "\(retries)")
        #expect(
            retries.last?.contains("503") == true
                && retries.last?.hasSuffix("retrying in 0.5 s (attempt 2 of 6)") == true)
        // 1000 notifications, 20 a page: 50 pages, then one transaction history per subscription.
        #expect(space.fake.paths.filter { $0 == "/inApps/v1/notifications/history" }.count == 50 + 3)
        let head = space.digest()
        let second = space.reconcile()
        #expect(second.code == 0, "\(second.err)")
        #expect(second.out == "{\"appended\":0,\"alreadyKnown\":1000,\"rejected\":0}\n")
        #expect(space.digest() == head)
        let state = ledger(["state", "--data", space.workspace.data, "--user", "42", "--json"])
        #expect(state.json?["subscriptions"]?.array?.count == 100)
    }

    @Test func aTamperedNotificationAppendsNothingAndNamesItsStatus() throws {
        var items = Array(Self.fixture.items.prefix(40))
        items[17].signedPayload = APIHistoryFixture.tampered(items[17].signedPayload)
        let space = try APIWorkspace(serving: items)
        defer { space.fake.stop() }
        space.ingest(items[0..<5])
        let head = space.digest()
        let result = space.reconcile()
        #expect(result.code == 1)
        #expect(result.out == "{\"appended\":0,\"alreadyKnown\":5,\"rejected\":1}\n")
        #expect(result.err.contains("error: notification history item 18 (\(TestPKIUUID.of(18))): "))
        #expect(result.err.contains("INVALID_JWT_FORMAT") || result.err.contains("VERIFICATION_FAILURE"))
        #expect(space.digest() == head)
        let quarantine = ledger(["quarantine", "--data", space.workspace.data, "--json"])
        #expect(quarantine.out.contains("VERIFICATION_FAILURE") || quarantine.out.contains("INVALID_JWT_FORMAT"))
    }

    @Test func aTamperedTransactionInTheHistoryAppendsNothingAtAll() throws {
        let items = Array(Self.fixture.items.prefix(30))
        let space = try APIWorkspace(serving: items)
        defer { space.fake.stop() }
        space.fake.addTransactions(
            [APIHistoryFixture.tampered(items[29].signedTransaction)], ids: [items[29].originalTransactionId])
        let result = space.reconcile()
        #expect(result.code == 1)
        #expect(result.out == "{\"appended\":0,\"alreadyKnown\":0,\"rejected\":1}\n")
        #expect(result.err.contains("error: transaction history page 30: "))
        #expect(result.err.contains("signedTransactions[1]: "))
        #expect(result.err.contains("nothing of the pull was appended"))
        #expect(space.digest()?["seq"] == .integer(0))
    }

    @Test func aServerWithoutTransactionHistoryStillRecoversTheNotifications() throws {
        let items = Array(Self.fixture.items.prefix(25))
        let space = try APIWorkspace(serving: [])
        defer { space.fake.stop() }
        space.fake.add(items.map { FakeAppStoreAPI.Notification(date: $0.date, signedPayload: $0.signedPayload) })
        space.ingest(items[0..<5])
        let result = space.reconcile()
        #expect(result.code == 0, "\(result.err)")
        #expect(result.out == "{\"appended\":20,\"alreadyKnown\":5,\"rejected\":0}\n")
        #expect(result.err.contains("warning: no transaction history for 25 of 25 subscriptions"))
    }

    @Test func aMissingOrUnreadableKeyIsAUsageError() throws {
        let space = try APIWorkspace(serving: [])
        defer { space.fake.stop() }
        let missing = ledger(
            ["reconcile", "--from-api", "--since", "2026-03-01T00:00:00Z", "--data", space.workspace.data]
                + space.workspace.verifyFlags + ["--key-id", "K", "--issuer-id", "I"])
        #expect(missing.code == 64)
        #expect(missing.err.hasPrefix("error: missing --key-file (or $LEDGER_APPSTORE_KEY_FILE)"))
        let unreadable = space.reconcile(keyFile: space.workspace.directory.path + "/absent.p8")
        #expect(unreadable.code == 64)
        #expect(unreadable.err.hasPrefix("error: cannot read the key file"))
        write(space.keyFile, "not a key")
        let garbage = space.reconcile()
        #expect(garbage.code == 64)
        #expect(garbage.err.contains("holds no unencrypted PEM private key"))
        #expect(!garbage.err.contains("not a key"))
        #expect(space.fake.requestCount == 0)
    }

    @Test func keyFlagsMayComeFromTheEnvironment() throws {
        let space = try APIWorkspace(serving: Array(Self.fixture.items.prefix(3)))
        defer { space.fake.stop() }
        let result = ledger(
            ["reconcile", "--from-api", "--since", "2026-03-01T00:00:00Z", "--until", "2026-03-02T00:00:00Z"]
                + ["--api-base-url", space.url, "--data", space.workspace.data] + space.workspace.verifyFlags,
            environment: [
                "LEDGER_APPSTORE_KEY_FILE": space.keyFile, "LEDGER_APPSTORE_KEY_ID": Self.keyId,
                "LEDGER_APPSTORE_ISSUER_ID": Self.issuerId,
            ])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.out == "{\"appended\":3,\"alreadyKnown\":0,\"rejected\":0}\n")
    }

    @Test func aWrongKeyIsRefusedByAppleAndNamed() throws {
        let space = try APIWorkspace(serving: Array(Self.fixture.items.prefix(3)))
        defer { space.fake.stop() }
        write(space.keyFile, try ECPrivateKey(generating: .p256).pemRepresentation)
        let result = space.reconcile()
        #expect(result.code == 1)
        #expect(result.err.contains("HTTP 401"))
        #expect(result.out.isEmpty)
    }
}

/// The UUID the fixture gave notification `number` (1-based).
enum TestPKIUUID {
    static func of(_ number: Int) -> String { TestPKI.Payloads.uuid(number) }
}
