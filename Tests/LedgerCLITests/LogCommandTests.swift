import LedgerJSON
import LedgerTesting
import Testing

@Suite struct LogCommandTests {
    let workspace = Workspace()

    func ingest(_ count: Int) throws {
        var lines: [String] = []
        for i in 0..<count {
            let signed = try workspace.pki.signedNotification(
                type: "DID_RENEW", uuid: TestPKI.Payloads.uuid(100 + i),
                transaction: TestPKI.Payloads.transaction(transactionId: "30000000000\(1000 + i)"))
            lines.append(String(decoding: TestPKI.body(signed), as: UTF8.self))
        }
        let result = ledger(
            ["ingest", "--data", workspace.data] + workspace.verifyFlags + [workspace.file("in.jsonl", lines)])
        #expect(result.code == 0, "\(result.err)")
    }

    @Test func verifyDigestAndExpectHead() throws {
        try ingest(5)
        let verify = ledger(["verify", "--data", workspace.data, "--json"])
        #expect(verify.code == 0)
        #expect(verify.json?["records"] == 5)
        let digest = try #require(ledger(["digest", "--data", workspace.data, "--json"]).json)
        #expect(digest["seq"] == 5)
        let head = try #require(digest["head"]?.string)
        #expect(verify.json?["headHash"]?.string == head)
        #expect(ledger(["verify", "--data", workspace.data, "--expect-head", head]).code == 0)
        let wrong = String(repeating: "0", count: 64)
        #expect(ledger(["verify", "--data", workspace.data, "--expect-head", wrong]).code == 1)
        #expect(ledger(["verify", "--data", workspace.data, "--expect-head", "xyz"]).code == 64)
    }

    @Test func exportThenImportReproducesTheHeadAndIsIdempotent() throws {
        try ingest(4)
        let export = ledger(["export", "--data", workspace.data])
        #expect(export.code == 0)
        let file = workspace.directory.path + "/export.jsonl"
        write(file, export.out)
        let copy = workspace.directory.path + "/copy"
        let first = ledger(["import", "--data", copy, file])
        #expect(first.code == 0, "\(first.err)")
        #expect(first.json == .object(["appended": 4, "alreadyKnown": 0]))
        let second = ledger(["import", "--data", copy, file])
        #expect(second.json == .object(["appended": 0, "alreadyKnown": 4]))
        let original = ledger(["digest", "--data", workspace.data, "--json"]).json
        let imported = ledger(["digest", "--data", copy, "--json"]).json
        #expect(original?["head"] == imported?["head"])
        #expect(ledger(["verify", "--data", copy]).code == 0)
    }

    @Test func historyListsTheRecordsWithTheirTimes() throws {
        try ingest(3)
        let result = ledger(["history", "--data", workspace.data, "--user", "42", "--json"])
        #expect(result.code == 0, "\(result.err)")
        let entries = try #require(result.json?.array)
        #expect(entries.count == 3)
        for key in [
            "seq", "recordedAt", "effectiveAt", "kind", "notificationType", "subtype", "notificationUUID",
            "originalTransactionId", "transactionId", "productId",
        ] {
            #expect(entries.allSatisfy { $0[key] != nil }, "missing \(key)")
        }
        #expect(entries.first?["kind"] == "renewal")
        let html = ledger(["history", "--data", workspace.data, "--user", "42", "--html"])
        #expect(html.code == 0)
        #expect(html.out.hasPrefix("<!doctype html>"))
        #expect(html.out.contains("<svg"))
    }

    @Test func rebuildReportsTheProjection() throws {
        try ingest(2)
        let result = ledger(["rebuild", "--data", workspace.data, "--json"])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.json?["records"] == 2)
    }
}
