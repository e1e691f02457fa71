import LedgerCrypto
import LedgerJSON
import LedgerTesting
import Testing

@Suite struct IngestCommandTests {
    let workspace = Workspace()

    func body(_ signed: String) -> String { String(decoding: TestPKI.body(signed), as: UTF8.self) }

    @Test func ingestCountsAcceptedDuplicatesAndRejected() throws {
        let good = body(try workspace.pki.signedNotification(type: "SUBSCRIBED", subtype: "INITIAL_BUY"))
        let other = body(try workspace.pki.signedNotification(type: "DID_RENEW", uuid: TestPKI.Payloads.uuid(2)))
        let input = workspace.file("in.jsonl", [good, "", other, good, #"{"nope":1}"#, "not json"])
        let result = ledger(["ingest", "--data", workspace.data] + workspace.verifyFlags + [input])
        #expect(result.code == 1, "\(result.err)")
        #expect(result.json == .object(["accepted": 2, "duplicates": 1, "rejected": 2]))
        let quarantine = ledger(["quarantine", "--data", workspace.data, "--json"])
        #expect(quarantine.code == 0)
        #expect(quarantine.json?.array?.count == 2)
        #expect(quarantine.json?.array?.allSatisfy { $0["status"] == "INVALID_JWT_FORMAT" } == true)

        let again = ledger(
            ["ingest", "--data", workspace.data] + workspace.verifyFlags + [workspace.file("again.jsonl", [good])])
        #expect(again.code == 0)
        #expect(again.json == .object(["accepted": 0, "duplicates": 1, "rejected": 0]))
    }

    @Test func stateJSONHasTheContractShape() throws {
        let signed = try workspace.pki.signedNotification(type: "SUBSCRIBED", subtype: "INITIAL_BUY")
        _ = ledger(
            ["ingest", "--data", workspace.data] + workspace.verifyFlags + [workspace.file("in.jsonl", [body(signed)])])
        let result = ledger([
            "state", "--data", workspace.data, "--user", "42", "--at", "2026-03-02T00:00:00Z", "--json",
        ])
        #expect(result.code == 0, "\(result.err)")
        let state = try #require(result.json)
        #expect(
            state.object?.keys == [
                "userId", "appAccountToken", "at", "knownAt", "entitled", "deviceLimit", "status", "subscriptions",
            ])
        #expect(state["userId"] == 42)
        #expect(state["appAccountToken"] == "0000002a-0000-0000-0000-000000000000")
        #expect(state["at"] == "2026-03-02T00:00:00Z")
        #expect(state["knownAt"] == .null)
        #expect(state["entitled"] == true)
        #expect(state["deviceLimit"] == 3)
        let subscription = try #require(state["subscriptions"]?.array?.first)
        #expect(
            subscription.object?.keys == [
                "originalTransactionId", "productId", "productKnown", "devices", "period", "status", "since",
                "expiresAt",
                "gracePeriodExpiresAt", "autoRenew", "pendingProductId", "lastSeq",
            ])
        #expect(subscription["lastSeq"] == 1)

        let unknown = ledger(["state", "--data", workspace.data, "--user", "7", "--json"])
        #expect(unknown.code == 0)
        #expect(unknown.json?["status"] == "none")
        #expect(unknown.json?["deviceLimit"] == 0)
    }

    @Test func anUnreadableInputIsAFailureNamingIt() {
        // A directory opens, but reading it fails: the error names the input and says what stays appended.
        let result = ledger(["ingest", "--data", workspace.data] + workspace.verifyFlags + [workspace.directory.path])
        #expect(result.code == 1)
        #expect(result.err.contains("error: cannot read \(workspace.directory.path) after line 0"), "\(result.err)")
        #expect(result.err.contains("the 0 records accepted before it stay appended"))
    }

    @Test func aVerifiedNotificationTheLogCouldNotReadBackIsRejectedAlone() throws {
        // A 70 KB product id: verified, but past the record decoder's 64 KiB string limit. Stored, it would be a
        // record no read could get past; it is quarantined and the rest of its batch appended.
        let huge = TestPKI.Payloads.transaction(productId: String(repeating: "p", count: 70_000))
        let bad = body(
            try workspace.pki.signedNotification(type: "DID_RENEW", uuid: TestPKI.Payloads.uuid(7), transaction: huge))
        let good = body(try workspace.pki.signedNotification(type: "SUBSCRIBED", subtype: "INITIAL_BUY"))
        let result = ledger(
            ["ingest", "--data", workspace.data] + workspace.verifyFlags + [workspace.file("in.jsonl", [bad, good])])
        #expect(result.code == 1)
        #expect(result.json == .object(["accepted": 1, "duplicates": 0, "rejected": 1]))
        let kept = ledger(["quarantine", "--data", workspace.data, "--json"]).json?.array
        #expect(kept?.first?["message"]?.string?.contains("cannot be stored") == true)
        #expect(ledger(["export", "--data", workspace.data]).code == 0, "every record reads back")
        #expect(ledger(["state", "--data", workspace.data, "--user", "42", "--json"]).code == 0)
    }

    @Test func anInputThatStopsTheRunStillPrintsTheCountsOfWhatWasDone() throws {
        let good = body(try workspace.pki.signedNotification(type: "SUBSCRIBED", subtype: "INITIAL_BUY"))
        let result = ledger(
            ["ingest", "--json", "--data", workspace.data] + workspace.verifyFlags + [
                workspace.file("in.jsonl", [good]), workspace.directory.path,
            ])
        #expect(result.code == 1)
        #expect(result.json == .object(["accepted": 1, "duplicates": 0, "rejected": 0]))
        #expect(result.err.contains("error: cannot read \(workspace.directory.path)"), "\(result.err)")
        #expect(ledger(["digest", "--data", workspace.data, "--json"]).json?["seq"] == 1)
    }

    /// A PEM file with several roots trusts every one of them, not only the first: here the notification's chain
    /// needs the second.
    @Test func everyRootOfAPEMBundleIsTrusted() throws {
        let other = TestPKI.sharedP256.pki.root
        #expect(other != workspace.pki.pki.root)
        let bundle = workspace.file(
            "roots.pem", [other.pemRepresentation + workspace.pki.pki.root.pemRepresentation])
        let signed = try workspace.pki.signedNotification(type: "SUBSCRIBED", subtype: "INITIAL_BUY")
        let result = ledger(
            ["ingest", "--data", workspace.data, "--environment", "sandbox", "--bundle-id", TestPKI.bundleId]
                + ["--trust-root", bundle]
                + [workspace.file("in.jsonl", [body(signed)])])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.json == .object(["accepted": 1, "duplicates": 0, "rejected": 0]))
        let named = result.err.split(separator: "\n").filter { $0.hasPrefix("  trust root ") }
        #expect(named.count == 2, "both roots named: \(result.err)")
    }

    /// A line over the 64 MiB line limit is one rejection, like any other: quarantined (its first 1 MiB, its size
    /// and SHA-256), counted, and the lines after it ingested; exit 1 at the end.
    @Test func aLineOverTheLineLimitIsRejectedAndTheRunGoesOn() throws {
        let first = body(try workspace.pki.signedNotification(type: "SUBSCRIBED", subtype: "INITIAL_BUY"))
        let second = body(try workspace.pki.signedNotification(type: "DID_RENEW", uuid: TestPKI.Payloads.uuid(2)))
        var huge = [UInt8](repeating: UInt8(ascii: "x"), count: 65 << 20)
        huge[0] = UInt8(ascii: "{")
        let path = workspace.directory.path + "/in.jsonl"
        write(path, bytes: Array((first + "\n").utf8) + huge + Array(("\n" + second + "\n").utf8))
        let result = ledger(["ingest", "--data", workspace.data] + workspace.verifyFlags + [path])
        #expect(result.code == 1, "\(result.err)")
        #expect(result.json == .object(["accepted": 2, "duplicates": 0, "rejected": 1]))
        #expect(result.err.contains("error: 1 rejected"), "\(result.err)")
        let kept = try #require(ledger(["quarantine", "--data", workspace.data, "--json"]).json?.array)
        #expect(kept.count == 1)
        #expect(kept.first?["status"] == "PAYLOAD_TOO_LARGE")
        #expect(kept.first?["size"] == .int(65 << 20))
        #expect(kept.first?["sha256"] == .string(Hex.encode(SHA256.hash(huge))))
        #expect(kept.first?["body"]?.string?.utf8.count == 1 << 20)
        #expect(kept.first?["message"]?.string?.hasPrefix("line 2 of \(path) is \(65 << 20) bytes") == true)
    }

    @Test func refusesToVerifyWithoutATrustRoot() {
        let result = ledger([
            "ingest", "--data", workspace.data, "--environment", "sandbox", workspace.file("e.jsonl", []),
        ])
        #expect(result.code == 64)
        #expect(result.err.hasPrefix("error: no trust root"))
    }

    @Test func productionNeedsTheAppAppleId() {
        let result = ledger([
            "ingest", "--data", workspace.data, "--environment", "production", "--trust-root", workspace.root,
        ])
        #expect(result.code == 64)
        #expect(result.err.contains("--app-apple-id"))
    }

    @Test func aDataDirectoryKeepsItsEnvironment() throws {
        let signed = try workspace.pki.signedNotification()
        _ = ledger(
            ["ingest", "--data", workspace.data] + workspace.verifyFlags + [workspace.file("in.jsonl", [body(signed)])])
        let result = ledger([
            "ingest", "--data", workspace.data, "--environment", "production", "--app-apple-id", "1234567890",
            "--trust-root", workspace.root, workspace.file("p.jsonl", []),
        ])
        #expect(result.code == 1)
        #expect(result.err.contains("Sandbox"), "\(result.err)")
    }
}
