import LedgerJSON
import LedgerTesting
import Testing

/// `ledger void`: a compensating record that takes one record's facts out of every answer from its recording time
/// on, and its refusals.
@Suite struct VoidCommandTests {
    let workspace = Workspace()
    let at = "2026-03-02T00:00:00Z"

    /// Ingests user 42's purchase of a 3-device subscription (record 1).
    func ingest() throws {
        let signed = try workspace.pki.signedNotification(
            type: "SUBSCRIBED", subtype: "INITIAL_BUY", transaction: TestPKI.Payloads.transaction())
        let file = workspace.file("in.jsonl", [String(decoding: TestPKI.body(signed), as: UTF8.self)])
        #expect(ledger(["ingest", "--data", workspace.data] + workspace.verifyFlags + [file]).code == 0)
    }

    func void(_ seq: String, json: Bool = true) -> CommandResult {
        ledger(
            ["void", "--data", workspace.data, "--seq", seq, "--reason", "ingested by mistake", "--operator", "alice"]
                + (json ? ["--json"] : []))
    }

    func state(_ subject: [String], knownAt: Int64? = nil) -> JSONValue? {
        let known = knownAt.map { ["--known-at", "\($0)"] } ?? []
        return ledger(["state", "--data", workspace.data] + subject + ["--at", at, "--json"] + known).json
    }

    var head: JSONValue? { ledger(["digest", "--data", workspace.data, "--json"]).json?["head"] }

    /// The recording time of record `seq`, in milliseconds, from the export.
    func recordedAt(_ seq: Int) -> Int64? {
        let lines = ledger(["export", "--data", workspace.data]).out.split(separator: "\n")
        return (try? JSONValue.parse(Array(lines[seq - 1].utf8)))?["recordedAtMs"]?.int64
    }

    @Test func aVoidTakesTheRecordOutFromItsRecordingTimeOnAndKnownAtBeforeStillSeesIt() throws {
        try ingest()
        let user = ["--user", "42"]
        let subscription = ["--original-transaction-id", "2000000000000001"]
        #expect(state(user)?["deviceLimit"] == 3)
        let appended = void("1")
        #expect(appended.code == 0, "\(appended.err)")
        #expect(appended.json == .object(["appended": true, "seq": 2]))
        let voidedAt = try #require(recordedAt(2))
        for subject in [user, subscription] {
            #expect(state(subject)?["deviceLimit"] == 0, "\(subject)")
            #expect(state(subject)?["subscriptions"]?.array?.isEmpty == true, "\(subject)")
            // As known just before the void, the purchase still counts; from the void's recording time on it does
            // not, at any valid time.
            #expect(state(subject, knownAt: voidedAt - 1)?["deviceLimit"] == 3, "\(subject)")
            #expect(state(subject, knownAt: voidedAt)?["deviceLimit"] == 0, "\(subject)")
        }
        let later = ledger(
            ["state", "--data", workspace.data, "--user", "42", "--at", "2026-03-20T00:00:00Z", "--json"]
        ).json
        #expect(later?["deviceLimit"] == 0)
        // The projections honour it too.
        #expect(ledger(["rebuild", "--data", workspace.data]).code == 0)
        #expect(state(user)?["deviceLimit"] == 0)
        #expect(ledger(["verify", "--data", workspace.data]).code == 0)
        let audit = ledger(["audit", "--data", workspace.data, "--user", "42", "--json"] + workspace.verifyFlags)
        #expect(audit.code == 0, "\(audit.err)")
    }

    @Test func theVoidAndTheVoidedRecordAppearInHistory() throws {
        try ingest()
        #expect(void("1").code == 0)
        let history = ledger(["history", "--data", workspace.data, "--user", "42", "--json"]).json?.array ?? []
        let purchase = history.first { $0["seq"] == 1 }
        let void = history.first { $0["seq"] == 2 }
        #expect(purchase?["voidedBySeq"] == 2)
        #expect(void?["kind"] == "void")
        #expect(void?["voidsSeq"] == 1)
        #expect(void?["reason"] == "ingested by mistake")
        #expect(void?["operator"] == "alice")
        #expect(void?["source"] == "void")
        #expect(void?["record"]?["void"] == .object(["seq": 1, "reason": "ingested by mistake", "operator": "alice"]))
        // Known before the void: no void, nothing marked.
        let before = try #require(recordedAt(2)) - 1
        let earlier =
            ledger(["history", "--data", workspace.data, "--user", "42", "--json", "--known-at", "\(before)"]).json?
            .array ?? []
        #expect(earlier.count == 1)
        #expect(earlier.first?["voidedBySeq"] == nil)
        let html = ledger(["history", "--data", workspace.data, "--user", "42", "--html"]).out
        #expect(html.contains("void record 1"))
        #expect(html.contains("voided by record 2"))
        let text = ledger(["history", "--data", workspace.data, "--user", "42"]).out
        #expect(text.contains("void of record 1 by alice: ingested by mistake"), "\(text)")
        #expect(text.contains("(voided by record 2)"), "\(text)")
    }

    @Test func aSecondVoidOfTheSameRecordAppendsNothing() throws {
        try ingest()
        #expect(void("1").code == 0)
        let head = self.head
        let again = void("1")
        #expect(again.code == 0, "\(again.err)")
        #expect(again.json == .object(["appended": false, "seq": 2]))
        let text = void("1", json: false)
        #expect(text.code == 0)
        #expect(text.out == "record 1 was already voided by record 2; nothing appended\n")
        #expect(self.head == head)
    }

    @Test(arguments: [
        ("0", "error: no record 0; the log's head is 1"), ("2", "error: no record 2; the log's head is 1"),
    ])
    func aSeqTheLogDoesNotHoldIsRefused(seq: String, error: String) throws {
        try ingest()
        let head = self.head
        let result = void(seq)
        #expect(result.code == 1)
        #expect(result.err.hasPrefix(error), "\(result.err)")
        #expect(self.head == head, "nothing appended")
    }

    @Test func aVoidOfAVoidIsRefused() throws {
        try ingest()
        #expect(void("1").code == 0)
        let head = self.head
        let result = void("2")
        #expect(result.code == 1)
        #expect(result.err.hasPrefix("error: record 2 is itself a void (of record 1)"), "\(result.err)")
        #expect(self.head == head, "nothing appended")
    }

    @Test(arguments: [
        (["--seq", "1", "--operator", "alice"], "missing --reason"),
        (["--seq", "1", "--reason", "r"], "missing --operator"),
        (["--reason", "r", "--operator", "alice"], "missing --seq"),
        (["--seq", "-1", "--reason", "r", "--operator", "alice"], "--seq '-1' is not an integer"),
        (["--seq", "1", "--reason", " \t", "--operator", "alice"], "--reason needs some text"),
        (["--seq", "1", "--reason", "r", "--operator", "  "], "--operator needs some text"),
        (
            ["--seq", "1", "--reason", String(repeating: "r", count: 2001), "--operator", "alice"],
            "--reason is limited to 2000 bytes"
        ),
    ])
    func aVoidNeedsASeqAReasonAndAnOperator(arguments: [String], error: String) throws {
        try ingest()
        let head = self.head
        let result = ledger(["void", "--data", workspace.data] + arguments)
        #expect(result.code == 64)
        #expect(result.err.contains("error: \(error)"), "\(result.err)")
        #expect(self.head == head, "nothing appended")
    }

    @Test func helpDescribesVoid() {
        let help = ledger(["help", "void"])
        #expect(help.code == 0)
        #expect(help.out.contains("void --seq N --reason TEXT --operator NAME"), "\(help.out)")
    }
}
