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
    /// `GET /healthz`'s head seq, nil when it cannot be read.
    static func head(_ port: UInt16) -> Int64? {
        let client = HTTPClient(port: port, timeout: .seconds(10))
        defer { client.close() }
        guard let response = try? client.send(.get, "/healthz") else { return nil }
        return (try? JSONValue.parse(response.body))?["head"]?.int64
    }

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
