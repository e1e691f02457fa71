import LedgerHTTP
import LedgerTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A command that fails on its inputs, or cannot bind its port, leaves no data directory behind: inputs are
/// opened, and the port bound, before the data directory is opened or created.
@Suite struct NothingLeftBehindTests {
    let workspace = Workspace()

    var missing: String { workspace.directory.path + "/nofile.jsonl" }

    func expectNoDataDirectory() {
        #expect(access(workspace.data, F_OK) != 0, "the data directory was created")
    }

    @Test func ingestOfAMissingFileCreatesNothing() throws {
        let result = ledger(["ingest", "--data", workspace.data] + workspace.verifyFlags + [missing])
        #expect(result.code == 1)
        #expect(result.err.contains("error: cannot read \(missing)"), "\(result.err)")
        #expect(result.out.isEmpty, "no counts: nothing was done")
        expectNoDataDirectory()
    }

    @Test func ingestChecksEveryInputBeforeAppendingAny() throws {
        let signed = try workspace.pki.signedNotification(type: "SUBSCRIBED", subtype: "INITIAL_BUY")
        let good = workspace.file("in.jsonl", [String(decoding: TestPKI.body(signed), as: UTF8.self)])
        let result = ledger(["ingest", "--data", workspace.data] + workspace.verifyFlags + [good, missing])
        #expect(result.code == 1)
        #expect(result.err.contains("error: cannot read \(missing)"), "\(result.err)")
        expectNoDataDirectory()
    }

    @Test func importAndReconcileOfAMissingFileCreateNothing() {
        let imported = ledger(["import", "--data", workspace.data, missing])
        #expect(imported.code == 1)
        #expect(imported.err.hasPrefix("error: cannot read \(missing)"), "\(imported.err)")
        let reconciled = ledger(["reconcile", "--data", workspace.data] + workspace.verifyFlags + [missing])
        #expect(reconciled.code == 1)
        #expect(reconciled.err.contains("error: cannot read \(missing)"), "\(reconciled.err)")
        expectNoDataDirectory()
    }

    @Test func serveOnABusyPortCreatesNothing() throws {
        let busy = try HTTPListener(host: "127.0.0.1", port: 0)
        let result = ledger(
            ["serve", "--data", workspace.data, "--port", "\(busy.port)"] + workspace.verifyFlags)
        #expect(result.code == 1)
        #expect(result.err.contains("error: cannot serve on 127.0.0.1:\(busy.port)"), "\(result.err)")
        #expect(!result.out.contains("listening"))
        expectNoDataDirectory()
    }
}
