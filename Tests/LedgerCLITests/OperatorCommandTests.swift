import LedgerJSON
import LedgerTesting
import Testing

/// `ledger correct` and `ledger link`: operator records, appended, never rewriting history.
@Suite struct OperatorCommandTests {
    let workspace = Workspace()

    func ingest(token: String? = "0000002a-0000-0000-0000-000000000000") throws {
        let transaction = TestPKI.Payloads.transaction(appAccountToken: token)
        let signed = try workspace.pki.signedNotification(
            type: "SUBSCRIBED", subtype: "INITIAL_BUY", transaction: transaction)
        let file = workspace.file("in.jsonl", [String(decoding: TestPKI.body(signed), as: UTF8.self)])
        #expect(ledger(["ingest", "--data", workspace.data] + workspace.verifyFlags + [file]).code == 0)
    }

    func deviceLimit(_ subject: [String], at: String) -> JSONValue? {
        ledger(["state", "--data", workspace.data] + subject + ["--at", at, "--json"]).json?["deviceLimit"]
    }

    @Test func aCorrectionCountsFromItsEffectiveTimeAppearsInHistoryAndVerifies() throws {
        try ingest()
        let grant = ledger([
            "correct", "--data", workspace.data, "--user", "42", "--grant", "com.visla.gps.annual_10",
            "--from", "2026-03-10T00:00:00Z", "--until", "2026-03-20T00:00:00Z", "--reason", "outage credit",
            "--operator", "alice", "--json",
        ])
        #expect(grant.code == 0, "\(grant.err)")
        #expect(grant.json?["appended"] == true)
        #expect(deviceLimit(["--user", "42"], at: "2026-03-09T23:59:59.999Z") == 3)
        #expect(deviceLimit(["--user", "42"], at: "2026-03-10T00:00:00Z") == 13)
        #expect(deviceLimit(["--user", "42"], at: "2026-03-20T00:00:00Z") == 3)
        let revoke = ledger([
            "correct", "--data", workspace.data, "--user", "42", "--revoke", "--from", "2026-03-15T00:00:00Z",
            "--reason", "chargeback", "--operator", "bob",
        ])
        #expect(revoke.code == 0, "\(revoke.err)")
        #expect(deviceLimit(["--user", "42"], at: "2026-03-14T00:00:00Z") == 13)
        #expect(deviceLimit(["--user", "42"], at: "2026-03-15T00:00:00Z") == 0)
        let history = ledger(["history", "--data", workspace.data, "--user", "42", "--json"]).json?.array ?? []
        #expect(history.filter { $0["kind"] == "correction" }.count == 2)
        #expect(history.first { $0["kind"] == "correction" }?["source"] == "correction")
        #expect(ledger(["verify", "--data", workspace.data]).code == 0)
        let audit = ledger(["audit", "--data", workspace.data, "--user", "42", "--json"] + workspace.verifyFlags)
        #expect(audit.code == 0, "\(audit.err)")
        #expect(audit.json?["operatorRecords"] == 2)
        #expect(audit.json?["verified"] == 1)
        // The same command twice appends once.
        let again = ledger([
            "correct", "--data", workspace.data, "--user", "42", "--revoke", "--from", "2026-03-15T00:00:00Z",
            "--reason", "chargeback", "--operator", "bob", "--json",
        ])
        #expect(again.json?["appended"] == false)
    }

    @Test(arguments: [
        ("0000002a-0000-0000-0000-000000000000", ["--user", "42"]),
        ("5f1c2a9e-7b3d-4c1e-9a8f-2d6b0e4c7a13", ["--account-token", "5f1c2a9e-7b3d-4c1e-9a8f-2d6b0e4c7a13"]),
    ])
    func aRevokeAddressedToTheOwnerEndsTheSubscriptionHoweverItIsAskedAbout(token: String, owner: [String]) throws {
        try ingest(token: token)
        let revoke = ledger(
            ["correct", "--data", workspace.data] + owner + [
                "--revoke", "--from", "2026-03-15T00:00:00Z", "--reason", "chargeback", "--operator", "bob",
            ])
        #expect(revoke.code == 0, "\(revoke.err)")
        let subscription = ["--original-transaction-id", "2000000000000001"]
        for subject in [owner, subscription] {
            #expect(deviceLimit(subject, at: "2026-03-14T23:59:59.999Z") == 3, "\(subject)")
            let after = ledger(
                ["state", "--data", workspace.data] + subject + ["--at", "2026-03-16T00:00:00Z", "--json"]
            ).json
            #expect(after?["deviceLimit"] == 0, "\(subject)")
            #expect(after?["status"] == "revoked", "\(subject)")
        }
    }

    @Test func aCorrectionTheLogCouldNotReadBackIsRefusedAndAppendsNothing() throws {
        try ingest()
        // An over-long product is no product of the log's catalog (which could not hold it either): refused before
        // the log is written.
        let long = String(repeating: "p", count: 70_000)
        let result = ledger([
            "correct", "--data", workspace.data, "--user", "42", "--grant", long, "--from", "2026-01-01", "--until",
            "2026-02-01", "--reason", "r", "--operator", "o",
        ])
        #expect(result.code == 64)
        #expect(result.err.contains("is not a product of the catalog"), "\(result.err)")
        let link = ledger([
            "link", "--data", workspace.data, "--original-transaction-id", String(repeating: "9", count: 2000),
            "--user", "42", "--reason", "r", "--operator", "o",
        ])
        #expect(link.code == 1, "an over-long id is refused input, not an internal error: \(link.err)")
        #expect(ledger(["digest", "--data", workspace.data, "--json"]).json?["seq"] == 1, "nothing appended")
        #expect(ledger(["export", "--data", workspace.data]).code == 0)
    }

    @Test func anOrphanIsLinkedToAUser() throws {
        try ingest(token: nil)
        let at = "2026-03-02T00:00:00Z"
        #expect(deviceLimit(["--user", "7"], at: at) == 0)
        #expect(deviceLimit(["--original-transaction-id", "2000000000000001"], at: at) == 3)
        let link = ledger([
            "link", "--data", workspace.data, "--original-transaction-id", "2000000000000001", "--user", "7",
            "--reason", "support ticket 881", "--operator", "alice",
        ])
        #expect(link.code == 0, "\(link.err)")
        #expect(!link.err.contains("warning"), "\(link.err)")
        #expect(deviceLimit(["--user", "7"], at: at) == 3)
        let state = ledger([
            "state", "--data", workspace.data, "--original-transaction-id", "2000000000000001", "--json",
        ])
        #expect(state.json?["userId"] == 7)
    }

    /// The appAccountToken on a subscription's transactions decides its owner over any link: a link to another
    /// user needs --reassign, is recorded then, and the command says that it changes nothing.
    @Test func aLinkOfASubscriptionItsTokenOwnsSaysItChangesNothing() throws {
        try ingest()
        let link = ledger([
            "link", "--data", workspace.data, "--original-transaction-id", "2000000000000001", "--user", "7",
            "--reason", "support ticket 882", "--operator", "alice", "--json", "--reassign",
        ])
        #expect(link.code == 0, "\(link.err)")
        #expect(link.json?["appended"] == true)
        #expect(link.json?["linked"] == false)
        #expect(link.json?["owner"]?["userId"] == 42)
        #expect(link.err.contains("warning: subscription 2000000000000001 is owned by user 42"), "\(link.err)")
        #expect(deviceLimit(["--user", "7"], at: "2026-03-02T00:00:00Z") == 0)
        #expect(deviceLimit(["--user", "42"], at: "2026-03-02T00:00:00Z") == 3)
    }

    @Test func operatorRecordsNeedAReasonAndAnOperator() {
        let result = ledger(["correct", "--data", workspace.data, "--user", "42", "--revoke", "--from", "2026-01-01"])
        #expect(result.code == 64)
        #expect(result.err.contains("--reason"))
    }

    /// A grant of a product the catalog does not know would give no devices: a usage error naming the product,
    /// before anything is written (the data directory is not even created).
    @Test func aGrantOfAnUnknownProductIsAUsageError() throws {
        let grant = [
            "correct", "--data", workspace.data, "--user", "42", "--grant", "com.visla.gps.monthly_33", "--from",
            "2026-03-10T00:00:00Z", "--until", "2026-03-20T00:00:00Z", "--reason", "credit", "--operator", "alice",
        ]
        let fresh = ledger(grant)
        #expect(fresh.code == 64)
        #expect(
            fresh.err.hasPrefix(
                "error: --grant 'com.visla.gps.monthly_33' is not a product of the catalog (did you mean "
                    + "'com.visla.gps.monthly_3'?)"), "\(fresh.err)")
        #expect(fresh.err.contains("USAGE:"))
        #expect(ledger(["digest", "--data", workspace.data]).code == 1, "the data directory was not created")
        try ingest()
        let head = ledger(["digest", "--data", workspace.data, "--json"]).json?["seq"]
        #expect(ledger(grant).code == 64)
        #expect(ledger(["digest", "--data", workspace.data, "--json"]).json?["seq"] == head, "nothing appended")
        var known = grant
        known[6] = "com.visla.gps.monthly_3"
        #expect(ledger(known).code == 0)
    }

    @Test func aRevokeWithAnUntilIsAUsageErrorNotASilentDrop() {
        let result = ledger([
            "correct", "--data", workspace.data, "--user", "42", "--revoke", "--from", "2026-03-01",
            "--until", "2026-04-01", "--reason", "r", "--operator", "o",
        ])
        #expect(result.code == 64)
        #expect(result.err.hasPrefix("error: --revoke ends at --from and takes no --until"))
        let digest = ledger(["digest", "--data", workspace.data, "--json"])
        #expect(digest.err.hasPrefix("error: no ledger at"), "nothing written: the data directory was not created")
    }
}
