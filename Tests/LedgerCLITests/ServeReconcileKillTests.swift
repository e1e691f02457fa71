import LedgerCore
import LedgerSystem
import LedgerTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `ledger serve --reconcile-every` SIGKILLed while a pull is under way: the killed run appends nothing and leaves
/// the cursor as it was, and the restarted server recovers exactly what the webhook missed.
@Suite struct ServeReconcileKillTests {
    /// Polls `condition` every 50 ms for up to `seconds`.
    static func wait(seconds: Int = 60, until condition: () -> Bool) -> Bool {
        for _ in 0..<(seconds * 20) {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }

    /// The `reconcile: …` lines of a server's standard error.
    static func runs(_ process: ServeProcess) -> [Substring] {
        process.errors.split(separator: "\n").filter { $0.hasPrefix("reconcile: ") }
    }

    @Test(.enabled(if: ServeProcess.binary != nil))
    func aPullKilledMidwayAppendsNothingAndTheRestartRecoversExactlyTheMissing() throws {
        let binary = try #require(ServeProcess.binary)
        let items = ReconcileFromAPITests.fixture.items
        let space = try ReconcileFromAPITests.APIWorkspace(serving: [])
        defer { space.fake.stop() }
        let apple = SlowAppStoreAPI(space.fake)
        let url = try apple.start()
        defer { apple.stop() }
        // 300 of 1,000 never reached the webhook: every third of the first 900.
        let delivered = items.enumerated().filter { $0.offset >= 900 || $0.offset % 3 != 0 }.map(\.element)
        #expect(delivered.count == 700)
        space.ingest(delivered[...])
        let cursorPath = space.workspace.data + "/reconcile-cursor"
        let flags =
            ["serve", "--data", space.workspace.data, "--port", "0", "--reconcile-every", "1s"]
            + ["--reconcile-since", "2026-03-01T00:00:00Z", "--api-base-url", url] + space.workspace.verifyFlags
        let environment = [
            "LEDGER_APPSTORE_KEY_FILE": space.keyFile, "LEDGER_APPSTORE_KEY_ID": ReconcileFromAPITests.keyId,
            "LEDGER_APPSTORE_ISSUER_ID": ReconcileFromAPITests.issuerId,
        ]

        // A first run while Apple lists nothing yet: it appends nothing and writes the cursor.
        let first = try ServeProcess(binary, flags, environment: environment, outputIn: space.workspace.directory.path)
        let port = try #require(first.waitUntilListening(), "serve did not start: \(first.errors)")
        #expect(Self.wait { !Self.runs(first).isEmpty }, "\(first.errors)")
        #expect(ServeProcess.read(cursorPath).isEmpty == false)

        // Apple now lists the 1,000 (dated just now, inside the next window), slowly: 50 pages, 300 ms each.
        apple.pageDelayMilliseconds = 300
        let addedAt = SystemClock.wallMilliseconds()
        let listed = addedAt - 10_000
        space.fake.add(
            items.enumerated().map {
                FakeAppStoreAPI.Notification(date: listed + Int64($0.offset), signedPayload: $0.element.signedPayload)
            })
        let pagesBefore = apple.historyRequests
        #expect(Self.wait { apple.historyRequests >= pagesBefore + 8 }, "\(first.errors)")
        #expect(ServeReconcileTests.head(port) == 700)
        kill(first.pid, SIGKILL)
        #expect(first.stop() == 128 + SIGKILL)
        #expect(
            Self.runs(first).allSatisfy { $0.hasPrefix("reconcile: {\"appended\":0,\"alreadyKnown\":0,") },
            "the killed run must not have reported: \(first.errors)")

        // Nothing of the killed pull was appended, and the cursor is a complete run's, from before Apple listed
        // the 1,000: a whole number the killed run never advanced.
        #expect(space.digest()?["seq"] == .integer(700))
        let cursor = ServeProcess.read(cursorPath)
        let written = try #require(Int64(cursor.filter { !$0.isWhitespace }), "cursor: '\(cursor)'")
        #expect(cursor == "\(written)\n")
        #expect(written <= addedAt)
        #expect(
            !ServeProcess.files(under: space.workspace.data).contains {
                $0.contains("reconcile-cursor") && $0 != cursorPath
            })

        // Restarted (Apple fast again), the server goes on from the cursor and appends exactly the 300.
        apple.pageDelayMilliseconds = 0
        mkdir(space.workspace.directory.path + "/again", 0o700)
        let again = try ServeProcess(
            binary, flags, environment: environment, outputIn: space.workspace.directory.path + "/again")
        let portAgain = try #require(again.waitUntilListening(), "serve did not start: \(again.errors)")
        #expect(Self.wait(seconds: 120) { !Self.runs(again).isEmpty }, "\(again.errors)")
        let resumed = Self.runs(again).first ?? ""
        #expect(
            resumed.hasPrefix("reconcile: {\"appended\":300,\"alreadyKnown\":700,\"rejected\":0}"), "\(again.errors)")
        #expect(resumed.contains("for \(Instant(milliseconds: written - 3_600_000)) to "), "\(resumed)")
        #expect(ServeReconcileTests.head(portAgain) == 1000)
        #expect(Self.wait { Self.runs(again).count >= 2 }, "\(again.errors)")
        #expect(Self.runs(again).dropFirst().first?.hasPrefix("reconcile: {\"appended\":0,") == true)
        #expect(again.stop() == 0)
        let advanced = ServeProcess.read(cursorPath)
        let resumedCursor = try #require(Int64(advanced.filter { !$0.isWhitespace }), "cursor: '\(advanced)'")
        #expect(resumedCursor > written && resumedCursor <= SystemClock.wallMilliseconds())

        // No duplicate, none lost: the log holds the 1,000, and pulling the window again finds nothing to add.
        #expect(space.digest()?["seq"] == .integer(1000))
        let check = ledger(
            ["reconcile", "--from-api", "--since", Instant(milliseconds: listed - 1000).iso8601]
                + ["--key-file", space.keyFile, "--key-id", ReconcileFromAPITests.keyId]
                + ["--issuer-id", ReconcileFromAPITests.issuerId, "--api-base-url", url]
                + ["--data", space.workspace.data] + space.workspace.verifyFlags)
        #expect(check.code == 0, "\(check.err)")
        #expect(check.out == "{\"appended\":0,\"alreadyKnown\":1000,\"rejected\":0}\n")
        let verify = ledger(["verify", "--data", space.workspace.data])
        #expect(verify.code == 0, "\(verify.out)\(verify.err)")
    }
}
