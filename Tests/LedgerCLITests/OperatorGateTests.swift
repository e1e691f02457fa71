import LedgerJSON
import LedgerTesting
import Testing

/// The operator gates: a link needs a subscription the ledger has seen and `--reassign` to move an owned one;
/// an import refuses a line whose record was altered; a grant names its subscription `correction:<hex>`.
@Suite struct OperatorGateTests {
    let workspace = Workspace()
    let at = "2026-03-02T00:00:00Z"
    let orphan = "2000000000000001"

    /// Ingests the purchase of subscription 2000000000000001 (3 devices), with user 42's token or none.
    func ingest(token: String? = nil) throws {
        let signed = try workspace.pki.signedNotification(
            type: "SUBSCRIBED", subtype: "INITIAL_BUY",
            transaction: TestPKI.Payloads.transaction(appAccountToken: token))
        let file = workspace.file("in.jsonl", [String(decoding: TestPKI.body(signed), as: UTF8.self)])
        #expect(ledger(["ingest", "--data", workspace.data] + workspace.verifyFlags + [file]).code == 0)
    }

    func link(_ otid: String, user: Int, _ extra: [String] = []) -> CommandResult {
        ledger(
            [
                "link", "--data", workspace.data, "--original-transaction-id", otid, "--user", "\(user)", "--reason",
                "ticket 7", "--operator", "alice", "--json",
            ] + extra)
    }

    func deviceLimit(user: Int) -> JSONValue? {
        ledger(["state", "--data", workspace.data, "--user", "\(user)", "--at", at, "--json"]).json?["deviceLimit"]
    }

    var head: JSONValue? { ledger(["digest", "--data", workspace.data, "--json"]).json?["head"] }

    @Test func aLinkToASubscriptionTheLedgerHasNeverSeenIsRefused() throws {
        try ingest()
        let head = self.head
        let result = link("2999999999999999", user: 7)
        #expect(result.code == 1)
        #expect(
            result.err.hasPrefix("error: the ledger has no record of subscription 2999999999999999"), "\(result.err)")
        #expect(self.head == head, "nothing appended")
    }

    @Test func movingALinkedSubscriptionNeedsReassignAndNamesThePreviousOwner() throws {
        try ingest()
        #expect(link(orphan, user: 7).code == 0)
        #expect(deviceLimit(user: 7) == 3)
        let head = self.head
        let refused = link(orphan, user: 8)
        #expect(refused.code == 1)
        #expect(
            refused.err.hasPrefix(
                "error: subscription 2000000000000001 belongs to user 7; moving it to user 8 needs --reassign"),
            "\(refused.err)")
        #expect(self.head == head, "nothing appended")
        #expect(deviceLimit(user: 7) == 3)
        // With --reassign the move is recorded, naming whose it was.
        let moved = link(orphan, user: 8, ["--reassign"])
        #expect(moved.code == 0, "\(moved.err)")
        #expect(moved.json?["appended"] == true)
        #expect(moved.json?["linked"] == true)
        #expect(deviceLimit(user: 7) == 0)
        #expect(deviceLimit(user: 8) == 3)
        let history = ledger(["history", "--data", workspace.data, "--user", "8", "--json"]).json?.array ?? []
        let record = history.last { $0["kind"] == "link" }?["record"]
        #expect(
            record?["link"]?["previousOwner"]
                == .object(["appAccountToken": "00000007-0000-0000-0000-000000000000", "userId": 7]))
        // Linking it to its owner again needs no --reassign; moving it back does.
        #expect(link(orphan, user: 8).code == 0)
        #expect(link(orphan, user: 7).code == 1)
        let back = link(orphan, user: 7, ["--reassign"])
        #expect(back.json?["appended"] == true, "a move back is a move of its own, not a duplicate of the first link")
        #expect(deviceLimit(user: 7) == 3)
        #expect(ledger(["verify", "--data", workspace.data]).code == 0)
    }

    @Test func aLinkAwayFromTheTokensOwnerNeedsReassign() throws {
        try ingest(token: "0000002a-0000-0000-0000-000000000000")
        let head = self.head
        let refused = link(orphan, user: 7)
        #expect(refused.code == 1)
        #expect(refused.err.contains("belongs to user 42"), "\(refused.err)")
        #expect(self.head == head, "nothing appended")
    }

    @Test func aGrantNamesItsSubscriptionWithThePrefixOnce() throws {
        try ingest(token: "0000002a-0000-0000-0000-000000000000")
        let grant = ledger([
            "correct", "--data", workspace.data, "--user", "42", "--grant", "com.visla.gps.annual_10", "--from",
            "2026-03-01T00:00:00Z", "--until", "2026-03-20T00:00:00Z", "--reason", "credit", "--operator", "bob",
        ])
        #expect(grant.code == 0, "\(grant.err)")
        let state = ledger(["state", "--data", workspace.data, "--user", "42", "--at", at, "--json"]).json
        let ids = (state?["subscriptions"]?.array ?? []).compactMap { $0["originalTransactionId"]?.string }
        let granted = try #require(ids.first { $0.hasPrefix("correction:") })
        #expect(!granted.hasPrefix("correction:correction:"), "\(granted)")
        #expect(granted.count == "correction:".count + 32, "\(granted)")
        let history = ledger(["history", "--data", workspace.data, "--user", "42", "--json"]).json?.array ?? []
        #expect(history.first { $0["kind"] == "correction" }?["originalTransactionId"]?.string == granted)
    }

    @Test func anImportLineWhoseRecordDiffersFromItsPayloadIsRefused() throws {
        try ingest(token: "0000002a-0000-0000-0000-000000000000")
        #expect(link(orphan, user: 42).code == 0)
        let lines = ledger(["export", "--data", workspace.data]).out.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        var altered = lines
        altered[0] = altered[0].replacing(
            #""productId":"com.visla.gps.monthly_3""#, with: #""productId":"com.visla.gps.annual_10""#)
        #expect(altered[0] != lines[0])
        let copy = workspace.directory.path + "/copy"
        let result = ledger(["import", "--data", copy, workspace.file("altered.jsonl", altered)])
        #expect(result.code == 1)
        #expect(
            result.err.hasPrefix(
                "error: line 1: its record differs from the decoding of its payload at record.transaction.productId"),
            "\(result.err)")
        #expect(ledger(["digest", "--data", copy, "--json"]).json?["seq"] == 0, "nothing of the file imported")
        // The same export unaltered imports whole.
        let honest = ledger(["import", "--data", copy, workspace.file("honest.jsonl", lines)])
        #expect(honest.code == 0, "\(honest.err)")
        #expect(ledger(["digest", "--data", copy, "--json"]).json?["head"] == head)
    }
}
