import LedgerCLI
import LedgerCore
import LedgerJSON
import LedgerLog
import LedgerService
import LedgerSystem
import LedgerTesting
import Testing

/// `--store URL` / `$LEDGER_STORE` as an operator uses them: a wrong URL is a usage error, and a ledger moved from
/// the file log into PostgreSQL by `export` and `import` answers with the same head.
@Suite("ledger --store")
struct StoreOptionTests {
    /// Runs `ledger` in-process with captured output.
    func ledger(_ arguments: [String], environment: [String: String] = [:]) -> (code: Int32, out: String, err: String) {
        let capture = OutputCapture()
        let code = Terminal.$capture.withValue(capture) { LedgerMain.run(arguments, environment: environment) }
        return (code, capture.standardOutput, capture.standardError)
    }

    @Test func aStoreThatIsNotPostgresIsAUsageError() {
        let direct = ledger(["digest", "--store", "mysql://root:pw@db/ledger"])
        #expect(direct.code == 64)
        #expect(direct.err.contains("is not a postgres:// or postgresql:// URL"))
        #expect(!direct.err.contains("pw@"), "the password is not shown")
        let fromEnvironment = ledger(["state", "--user", "1"], environment: ["LEDGER_STORE": "sqlite:///x"])
        #expect(fromEnvironment.code == 64)
    }

    @Test(.enabled(if: PostgresHarness.configured, PostgresHarness.skipReason))
    func exportFromTheFileLogImportIntoPostgresKeepsTheHead() throws {
        let harness = try PostgresHarness()
        let directory = TemporaryDirectory(prefix: "ledger-store-option")
        let data = directory.path + "/data"
        let source = Ledger(
            log: try EventLog.openWriter(at: data, environment: LedgerEnvironment.sandbox.rawValue))
        _ = try source.append(Conformance.purchaseThenRefund())
        source.close()

        let exported = ledger(["export", "--data", data])
        #expect(exported.code == 0)
        let file = directory.path + "/export.jsonl"
        try PosixFileSystemWriter.write(file, exported.out)
        let imported = ledger(["import", "--store", harness.url, file, "--json"])
        #expect(imported.code == 0, "\(imported.err)")
        #expect(JSONValue.parseOrNil(imported.out)?["appended"]?.int64 == 2)

        let fileDigest = ledger(["digest", "--data", data, "--json"])
        let storeDigest = ledger(["digest", "--json"], environment: ["LEDGER_STORE": harness.url])
        #expect(fileDigest.code == 0 && storeDigest.code == 0)
        let fileHead = JSONValue.parseOrNil(fileDigest.out)?["head"]?.string
        #expect(fileHead != nil)
        #expect(JSONValue.parseOrNil(storeDigest.out)?["head"]?.string == fileHead)
        let verified = ledger(["verify", "--store", harness.url, "--expect-head", fileHead ?? ""])
        #expect(verified.code == 0, "\(verified.err)")
        let state = ledger(["state", "--store", harness.url, "--user", "42", "--at", "2026-01-05T00:00:00Z", "--json"])
        #expect(JSONValue.parseOrNil(state.out)?["deviceLimit"]?.int64 == 3)
    }
}

extension JSONValue {
    /// The document in `text`, or nil when it is not JSON.
    static func parseOrNil(_ text: String) -> JSONValue? { try? JSONValue.parse(Array(text.utf8)) }
}

/// Writes a text file for a test.
enum PosixFileSystemWriter {
    static func write(_ path: String, _ text: String) throws {
        try LedgerSystem.PosixFileSystem().writeFileDurably(path, Array(text.utf8))
    }
}
