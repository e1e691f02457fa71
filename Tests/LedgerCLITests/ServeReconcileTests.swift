import LedgerCore
import LedgerHTTP
import LedgerJSON
import LedgerTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `ledger serve --reconcile-every` against the fake App Store Server API.
@Suite struct ServeReconcileTests {
    /// `GET target`'s body, nil when it cannot be read.
    static func get(_ port: UInt16, _ target: String) -> String? {
        let client = HTTPClient(port: port, timeout: .seconds(10))
        defer { client.close() }
        guard let response = try? client.send(.get, target), response.status.code == 200 else { return nil }
        return response.bodyText
    }

    /// `GET /healthz`, decoded.
    static func health(_ port: UInt16) -> JSONValue? { get(port, "/healthz").flatMap { try? JSONValue.parse($0) } }

    /// `GET /healthz`'s head seq, nil when it cannot be read.
    static func head(_ port: UInt16) -> Int64? { health(port)?["head"]?.int64 }

    @Test(.enabled(if: ServeProcess.binary != nil))
    func recoversWhatTheWebhookMissedOnScheduleAndKeepsACursor() throws {
        let binary = try #require(ServeProcess.binary)
        let items = Array(ReconcileFromAPITests.fixture.items.prefix(30))
        let space = try ReconcileFromAPITests.APIWorkspace(serving: items)
        defer { space.fake.stop() }
        space.ingest(items[0..<20])
        let flags =
            ["serve", "--data", space.workspace.data, "--port", "0", "--reconcile-every", "1s"]
            + ["--reconcile-since", "2026-03-01T00:00:00Z", "--api-base-url", space.url]
            + space.workspace.verifyFlags
        let environment = [
            "LEDGER_APPSTORE_KEY_FILE": space.keyFile, "LEDGER_APPSTORE_KEY_ID": ReconcileFromAPITests.keyId,
            "LEDGER_APPSTORE_ISSUER_ID": ReconcileFromAPITests.issuerId,
        ]
        let serve = try ServeProcess(binary, flags, environment: environment, outputIn: space.workspace.directory.path)
        let port = try #require(serve.waitUntilListening(), "serve did not start: \(serve.errors)")
        var head: Int64?
        for _ in 0..<300 where head != 30 {
            head = Self.head(port)
            if head != 30 { usleep(50_000) }
        }
        #expect(head == 30, "\(serve.errors)")
        // The next run starts from the durable cursor (less the overlap) and finds nothing new.
        func runs(_ process: ServeProcess) -> [Substring] {
            process.errors.split(separator: "\n").filter { $0.hasPrefix("reconcile: ") }
        }
        for _ in 0..<300 where runs(serve).count < 2 { usleep(50_000) }
        let first = runs(serve)
        #expect(first.first?.hasPrefix("reconcile: {\"appended\":10,\"alreadyKnown\":20,\"rejected\":0}") == true)
        #expect(first.dropFirst().first?.hasPrefix("reconcile: {\"appended\":0,") == true, "\(first)")
        #expect(Self.health(port)?["status"] == .string("ok"))
        #expect(Self.health(port)?["reconcile"]?["lastSuccess"]?.int64 != nil)
        let metrics = Self.get(port, "/metrics") ?? ""
        #expect(metrics.contains("ledger_reconcile_recovered_total 10"), "\(metrics)")
        #expect(metrics.contains("ledger_reconcile_runs_total{outcome=\"ok\"}"), "\(metrics)")
        // SIGKILLed mid-schedule: the cursor is on disk, and a new server goes on from it.
        kill(serve.pid, SIGKILL)
        _ = serve.stop()
        let cursor = ServeProcess.read(space.workspace.data + "/reconcile-cursor")
        let milliseconds = try #require(Int64(cursor.filter { !$0.isWhitespace }), "\(cursor)")
        mkdir(space.workspace.directory.path + "/again", 0o700)
        let again = try ServeProcess(
            binary, flags, environment: environment, outputIn: space.workspace.directory.path + "/again")
        let portAgain = try #require(again.waitUntilListening(), "serve did not start: \(again.errors)")
        for _ in 0..<300 where runs(again).isEmpty { usleep(50_000) }
        #expect(Self.head(portAgain) == 30)
        #expect(again.stop() == 0)
        let resumed = runs(again).first ?? ""
        #expect(resumed.hasPrefix("reconcile: {\"appended\":0,"), "\(again.errors)")
        #expect(resumed.contains("for \(Instant(milliseconds: milliseconds - 3_600_000)) to "), "\(resumed)")
        #expect(!(serve.errors + again.errors).contains("BEGIN PRIVATE KEY"))
    }

    @Test(.enabled(if: ServeProcess.binary != nil))
    func anUnreachableAppleDegradesHealthButNeverTheWebhook() throws {
        let binary = try #require(ServeProcess.binary)
        let items = Array(ReconcileFromAPITests.fixture.items.prefix(2))
        let space = try ReconcileFromAPITests.APIWorkspace(serving: [])
        let unreachable = space.url
        space.fake.stop()
        let flags =
            ["serve", "--data", space.workspace.data, "--port", "0", "--reconcile-every", "1s"]
            + ["--reconcile-degraded-after", "1s", "--api-base-url", unreachable]
            + ["--key-file", space.keyFile, "--key-id", ReconcileFromAPITests.keyId]
            + ["--issuer-id", ReconcileFromAPITests.issuerId] + space.workspace.verifyFlags
        let serve = try ServeProcess(binary, flags, environment: [:], outputIn: space.workspace.directory.path)
        let port = try #require(serve.waitUntilListening(), "serve did not start: \(serve.errors)")
        var status: JSONValue?
        for _ in 0..<200 where status != .string("degraded") {
            status = Self.health(port)?["status"]
            if status != .string("degraded") { usleep(50_000) }
        }
        #expect(status == .string("degraded"), "\(serve.errors)")
        // The webhook still takes Apple's deliveries.
        let client = HTTPClient(port: port, timeout: .seconds(10))
        defer { client.close() }
        let delivered = try client.send(.post, "/webhooks/apple", body: items[0].body)
        #expect(delivered.status.code == 200, "\(delivered.bodyText)")
        for _ in 0..<200 where !serve.errors.contains("error: reconcile for ") { usleep(50_000) }
        #expect(serve.stop() == 0)
        #expect(serve.errors.contains("the webhook keeps serving"), "\(serve.errors)")
    }

    @Test func aBadScheduleIsAUsageError() throws {
        let space = try ReconcileFromAPITests.APIWorkspace(serving: [])
        defer { space.fake.stop() }
        let result = ledger(
            ["serve", "--data", space.workspace.data, "--port", "0", "--reconcile-every", "soon"]
                + space.workspace.verifyFlags)
        #expect(result.code == 64)
        #expect(result.err.hasPrefix("error: --reconcile-every 'soon' is not a duration"))
    }
}
