import LedgerCore
import LedgerJSON
import LedgerService
import LedgerTesting
import Testing

@testable import LedgerCLI

/// `ledger catalog [--at T]` and `ledger catalog set FILE`: the catalog comes from the log, and only from it.
@Suite struct CatalogSetCommandTests {
    let workspace = Workspace()

    /// User 42's monthly_3, bought 28 February 2026, expiring 30 March (TestPKI's payload).
    func ingest() throws {
        let signed = try workspace.pki.signedNotification(
            type: "SUBSCRIBED", subtype: "INITIAL_BUY", transaction: TestPKI.Payloads.transaction())
        let file = workspace.file("in.jsonl", [String(decoding: TestPKI.body(signed), as: UTF8.self)])
        let result = ledger(["ingest", "--data", workspace.data] + workspace.verifyFlags + [file])
        #expect(result.code == 0, "\(result.err)")
    }

    /// The built-in catalog with monthly_3 giving 5 devices, as a `catalog set` file.
    func fiveDeviceFile() -> String {
        var products = Catalog.visla.products
        products[products.firstIndex { $0.id == "com.visla.gps.monthly_3" }!].devices = 5
        let text = JSONValue.object(["products": .array(products.map(\.json))]).serialized()
        return workspace.file("catalog.json", [text])
    }

    var head: JSONValue? { ledger(["digest", "--data", workspace.data, "--json"]).json?["seq"] }

    func deviceLimit(at: String) -> JSONValue? {
        ledger(["state", "--data", workspace.data, "--user", "42", "--at", at, "--json"]).json?["deviceLimit"]
    }

    @Test func aLogWithoutACatalogRecordReadsWithTheBuiltInCatalogAndCatalogSaysSo() throws {
        try ingest()
        // --json prints the products in force, the shape it always had.
        let shown = ledger(["catalog", "--data", workspace.data, "--json"])
        #expect(shown.code == 0, "\(shown.err)")
        #expect(shown.json?.array?.count == 30)
        #expect(shown.json?.array?.first?["productId"] == "com.visla.gps.monthly_1")
        let text = ledger(["catalog", "--data", workspace.data])
        #expect(text.out.hasPrefix("catalog in force at "))
        #expect(
            text.out.contains(": the built-in catalog (no catalog version of the log is in force then;"), "\(text.out)")
        // A directory with nothing in it reads with the built-in catalog, and says it is not from a record.
        let none = TemporaryDirectory()
        let empty = ledger(["catalog", "--data", none.path])
        #expect(empty.code == 0, "\(empty.err)")
        #expect(empty.out.contains(": the built-in catalog ("), "\(empty.out)")
        // So does a data directory that does not exist yet: a ledger with no records.
        let missing = ledger(["catalog", "--data", none.path + "/not-yet", "--json"])
        #expect(missing.code == 0, "\(missing.err)")
        #expect(missing.json?.array?.count == 30)
    }

    @Test func catalogSetAppendsAVersionThatChangesOnlyLaterPeriods() throws {
        try ingest()
        let file = fiveDeviceFile()
        // From 1 March: the period began 28 February, before it: still 3 devices.
        let late = ledger([
            "catalog", "set", file, "--from", "2026-03-01T00:00:00Z", "--reason", "five devices", "--operator",
            "alice", "--data", workspace.data, "--json",
        ])
        #expect(late.code == 0, "\(late.err)")
        #expect(late.json?["seq"] == 2)
        #expect(deviceLimit(at: "2026-03-15T00:00:00Z") == 3)
        // From 1 February: the period began after it: 5 devices.
        let early = ledger([
            "catalog", "set", file, "--from", "2026-02-01T00:00:00Z", "--reason", "five devices", "--operator",
            "alice", "--data", workspace.data,
        ])
        #expect(early.code == 0, "\(early.err)")
        #expect(early.out == "appended as record 3\n")
        #expect(deviceLimit(at: "2026-03-15T00:00:00Z") == 5)
        // catalog --at names the record in force then.
        let at = { (time: String) in
            ledger(["catalog", "--data", self.workspace.data, "--at", time]).out.split(separator: "\n").first ?? ""
        }
        #expect(at("2026-01-15T00:00:00Z").contains(": the built-in catalog ("))
        #expect(at("2026-02-15T00:00:00Z").contains(": record 3 (from 2026-02-01T00:00:00Z;"))
        #expect(at("2026-03-15T00:00:00Z").contains(": record 2 (from 2026-03-01T00:00:00Z;"))
        #expect(ledger(["verify", "--data", workspace.data]).code == 0)
        // The same version again appends nothing.
        let again = ledger([
            "catalog", "set", file, "--from", "2026-02-01T00:00:00Z", "--reason", "five devices", "--operator",
            "alice", "--data", workspace.data, "--json",
        ])
        #expect(again.json?["appended"] == false)
        #expect(head == 3)
    }

    @Test func aDryRunAppendsNothingAndListsTheAnswersItWouldChange() throws {
        try ingest()
        let file = fiveDeviceFile()
        let dry = ledger([
            "catalog", "set", file, "--from", "2026-02-01T00:00:00Z", "--reason", "r", "--operator", "o", "--dry-run",
            "--data", workspace.data, "--json",
        ])
        #expect(dry.code == 0, "\(dry.err)")
        #expect(dry.json?["appended"] == false)
        let changes = dry.json?["changes"]?.array ?? []
        // Now (long after 30 March) the subscription is expired either way; its product gives 5 devices instead
        // of 3. On 1 February it had not started: nothing to change then.
        #expect(changes.count == 1, "\(dry.out)")
        #expect(changes.first?["when"] == "now")
        #expect(changes.first?["originalTransactionId"] == "2000000000000001")
        #expect(changes.first?["userId"] == 42)
        #expect(changes.first?["before"]?["devices"] == 3)
        #expect(changes.first?["after"]?["devices"] == 5)
        #expect(head == 1, "nothing appended")
        // A version from 1 March changes nothing (the period began before it).
        let none = ledger([
            "catalog", "set", file, "--from", "2026-03-01T00:00:00Z", "--reason", "r", "--operator", "o", "--dry-run",
            "--data", workspace.data,
        ])
        #expect(none.out.hasSuffix("would change no answer\n"), "\(none.out)")
        #expect(head == 1)
    }

    @Test(arguments: [
        (["--from", "2026-02-01", "--operator", "o"], "missing --reason"),
        (["--from", "2026-02-01", "--reason", "r"], "missing --operator"),
        (["--from", "yesterday", "--reason", "r", "--operator", "o"], "--from 'yesterday' is not a time"),
        (["--reason", "r", "--operator", "o"], "missing --from T"),
    ])
    func badFlagsAreUsageErrorsAndAppendNothing(flags: [String], message: String) throws {
        try ingest()
        let result = ledger(["catalog", "set", fiveDeviceFile(), "--data", workspace.data] + flags)
        #expect(result.code == 64)
        #expect(result.err.hasPrefix("error: \(message)"), "\(result.err)")
        #expect(head == 1)
    }

    @Test(arguments: [
        "not json", "[]", #"[{"productId":"x","period":"fortnightly","devices":1,"price":"1.00"}]"#,
        #"{"products":[{"productId":"x","period":"monthly","devices":-1,"price":"1.00"}]}"#,
    ])
    func aBadFileIsRejectedInputAndAppendsNothing(text: String) throws {
        try ingest()
        let file = workspace.file("bad.json", [text])
        let result = ledger([
            "catalog", "set", file, "--from", "2026-02-01", "--reason", "r", "--operator", "o", "--data",
            workspace.data,
        ])
        #expect(result.code == 1, "\(result.err)")
        #expect(result.err.hasPrefix("error: "))
        #expect(head == 1)
        let missing = ledger([
            "catalog", "set", workspace.directory.path + "/nowhere.json", "--from", "2026-02-01", "--reason", "r",
            "--operator", "o", "--data", workspace.data,
        ])
        #expect(missing.code == 1)
        #expect(head == 1)
    }

    /// Replays are reproducible: no reader's flag changes an answer; `--catalog` is refused, naming `catalog set`.
    @Test(arguments: [
        ["state", "--user", "42"], ["history", "--user", "42"], ["report", "sales"], ["catalog"], ["export"],
        ["verify"], ["digest"], ["rebuild"], ["serve"],
    ])
    func catalogIsAUsageErrorNamingCatalogSet(command: [String]) throws {
        try ingest()
        let before = ledger(["state", "--data", workspace.data, "--user", "42", "--at", "2026-03-15", "--json"])
        let file = fiveDeviceFile()
        let result = ledger(command + ["--data", workspace.data, "--catalog", file])
        #expect(result.code == 64)
        #expect(result.err.hasPrefix("error: --catalog is no longer taken: the catalog now comes from the log"))
        #expect(result.err.contains("'ledger catalog set FILE --from T --reason R --operator O'"))
        let after = ledger(["state", "--data", workspace.data, "--user", "42", "--at", "2026-03-15", "--json"])
        #expect(after.out == before.out)
        #expect(head == 1)
    }
}
