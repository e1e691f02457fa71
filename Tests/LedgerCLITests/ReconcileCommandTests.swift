import LedgerJSON
import LedgerTesting
import Testing

/// `ledger reconcile`: App Store Server API pages and legacy receipts, appending only what the log lacks.
@Suite struct ReconcileCommandTests {
    let workspace = Workspace()

    func historyPage(_ transactionIds: [String]) throws -> String {
        let signed = try transactionIds.map { id in
            try workspace.pki.sign(TestPKI.Payloads.transaction(transactionId: id))
        }
        return JSONValue.object([
            "signedTransactions": .array(signed.map(JSONValue.string)), "revision": "r1", "hasMore": false,
            "bundleId": .string(TestPKI.bundleId), "environment": "Sandbox",
        ]).serialized()
    }

    @Test func transactionHistoryAppendsOnlyWhatTheLogLacks() throws {
        let page = workspace.file("history.json", [try historyPage(["2000000000000002", "2000000000000003"])])
        let first = ledger(["reconcile", "--data", workspace.data] + workspace.verifyFlags + [page])
        #expect(first.code == 0, "\(first.err)")
        #expect(first.json == .object(["appended": 2, "alreadyKnown": 0, "rejected": 0]))
        let again = ledger(["reconcile", "--data", workspace.data] + workspace.verifyFlags + [page])
        #expect(again.json == .object(["appended": 0, "alreadyKnown": 2, "rejected": 0]))
        // The same transaction re-signed later (Apple signs every API response anew) is no news either.
        let resigned = try workspace.pki.sign(
            TestPKI.Payloads.transaction(
                transactionId: "2000000000000002", signedDate: TestPKI.Payloads.signedDate + 5_000))
        let page2 = workspace.file(
            "history2.json",
            [JSONValue.object(["signedTransactions": [.string(resigned)], "environment": "Sandbox"]).serialized()])
        let third = ledger(["reconcile", "--data", workspace.data] + workspace.verifyFlags + [page2])
        #expect(third.json == .object(["appended": 0, "alreadyKnown": 1, "rejected": 0]))
        let state = ledger([
            "state", "--data", workspace.data, "--user", "42", "--at", "2026-03-02T00:00:00Z", "--json",
        ])
        #expect(state.json?["deviceLimit"] == 3)
    }

    @Test func aForgedTransactionIsRejectedAndQuarantined() throws {
        let stranger = try TestPKI()
        let forged = try stranger.sign(TestPKI.Payloads.transaction(transactionId: "2000000000000009"))
        let page = workspace.file(
            "forged.json",
            [JSONValue.object(["signedTransactions": [.string(forged)], "environment": "Sandbox"]).serialized()])
        let result = ledger(["reconcile", "--data", workspace.data] + workspace.verifyFlags + [page])
        #expect(result.code == 1)
        #expect(result.json == .object(["appended": 0, "alreadyKnown": 0, "rejected": 1]))
        #expect(
            result.err.contains(
                ": VERIFICATION_FAILURE: signedTransactions[0]: the chain does not lead to a configured trust root"))
        #expect(result.err.contains("error: 1 rejected; nothing of \(page) was appended"), "\(result.err)")
        #expect(result.err.contains("see 'ledger quarantine"))
        #expect(
            ledger(["quarantine", "--data", workspace.data, "--json"]).json?.array?.first?["status"]
                == "VERIFICATION_FAILURE")
    }

    @Test func legacyReceiptsImportAsUnsignedFactsIncluding21006() throws {
        let receipt = """
            {"status":21006,"environment":"Sandbox","receipt":{"request_date_ms":"1772323200000",
             "bundle_id":"\(TestPKI.bundleId)"},
             "latest_receipt_info":[{"quantity":"1","product_id":"com.visla.gps.monthly_2",
               "transaction_id":"1000000000000777","original_transaction_id":"1000000000000777",
               "purchase_date_ms":"1769904000000","expires_date_ms":"1772323200000",
               "app_account_token":"00000063-0000-0000-0000-000000000000"}]}
            """
        let file = workspace.file("receipt.json", [receipt.replacingOccurrences(of: "\n", with: "")])
        let first = ledger(["reconcile", "--data", workspace.data] + workspace.verifyFlags + [file])
        #expect(first.code == 0, "\(first.err)")
        #expect(first.json?["appended"] == 1)
        #expect(
            ledger(["reconcile", "--data", workspace.data] + workspace.verifyFlags + [file]).json?["appended"] == 0)
        let history = ledger(["history", "--data", workspace.data, "--user", "99", "--json"])
        #expect(history.json?.array?.first?["source"] == "legacyReceipt")
        let state = ledger([
            "state", "--data", workspace.data, "--user", "99", "--at", "2026-02-15T00:00:00Z", "--json",
        ])
        #expect(state.json?["deviceLimit"] == 2)
    }

    @Test func aLegacyReceiptForAnotherAppOrNoneIsRefused() throws {
        for receipt in [#""receipt":{"bundle_id":"com.other.app"}"#, #""receipt":{"request_date_ms":"1"}"#] {
            let body = """
                {"status":0,"environment":"Sandbox",\(receipt),"latest_receipt_info":[{"quantity":"1",\
                "product_id":"com.visla.gps.monthly_2","transaction_id":"1000000000000778",\
                "original_transaction_id":"1000000000000778","purchase_date_ms":"1769904000000",\
                "expires_date_ms":"1772323200000"}]}
                """
            let file = workspace.file("foreign.json", [body])
            let result = ledger(["reconcile", "--data", workspace.data] + workspace.verifyFlags + [file])
            #expect(result.code == 1, "\(receipt)")
            #expect(result.json == .object(["appended": 0, "alreadyKnown": 0, "rejected": 1]), "\(receipt)")
            #expect(result.err.contains("rejected"), "\(receipt)")
        }
        let kept = ledger(["quarantine", "--data", workspace.data, "--json"]).json?.array
        #expect(kept?.count == 2)
        #expect(kept?.allSatisfy { $0["status"] == "INVALID_APP_IDENTIFIER" } == true)
        #expect(ledger(["digest", "--data", workspace.data, "--json"]).json?["seq"] == 0, "nothing appended")
    }

    @Test func aLegacyFactTheLogCouldNotReadBackRefusesItsFile() throws {
        let long = String(repeating: "p", count: 70_000)
        let fact = { (id: String, product: String) in
            #"{"quantity":"1","product_id":"\#(product)","transaction_id":"\#(id)","original_transaction_id":"\#(id)","#
                + #""purchase_date_ms":"1769904000000","expires_date_ms":"1772323200000"}"#
        }
        let body =
            #"{"status":0,"environment":"Sandbox","receipt":{"bundle_id":"\#(TestPKI.bundleId)"},"latest_receipt_info":["#
            + fact("1000000000000901", long) + "," + fact("1000000000000902", "com.visla.gps.monthly_2") + "]}"
        let result = ledger(
            ["reconcile", "--data", workspace.data] + workspace.verifyFlags + [workspace.file("long.json", [body])])
        #expect(result.code == 1)
        #expect(result.json == .object(["appended": 0, "alreadyKnown": 0, "rejected": 1]), "\(result.err)")
        #expect(result.err.contains("INVALID_RECORD"), "\(result.err)")
        #expect(
            ledger(["quarantine", "--data", workspace.data, "--json"]).json?.array?.first?["status"] == "INVALID_RECORD"
        )
        #expect(ledger(["digest", "--data", workspace.data, "--json"]).json?["seq"] == 0, "not even the good fact")
        #expect(ledger(["export", "--data", workspace.data]).code == 0, "every record reads back")
    }

    @Test func aLegacyDateOutsideTheYears0000To9999IsRefused() throws {
        let body =
            #"{"status":0,"environment":"Sandbox","receipt":{"bundle_id":"\#(TestPKI.bundleId)"},"#
            + #""latest_receipt_info":[{"quantity":"1","product_id":"com.visla.gps.monthly_2","#
            + #""transaction_id":"1000000000000903","original_transaction_id":"1000000000000903","#
            + #""purchase_date_ms":"-9223372036854775808","expires_date_ms":"9223372036854775807"}]}"#
        let result = ledger(
            ["reconcile", "--data", workspace.data] + workspace.verifyFlags + [workspace.file("ends.json", [body])])
        #expect(result.code == 1)
        #expect(result.err.contains("purchase_date_ms is -9223372036854775808 ms, outside the years 0000 to 9999"))
        #expect(ledger(["digest", "--data", workspace.data, "--json"]).json?["seq"] == 0, "nothing appended")
    }

    /// Each document of a file is judged alone, and any refusal keeps the whole file out of the log.
    @Test func eachDocumentOfAFileIsJudgedAndARefusalKeepsTheFileOut() throws {
        let info = try workspace.pki.sign(TestPKI.Payloads.transaction(transactionId: "2000000000000005"))
        let lines = [
            try historyPage(["2000000000000004"]),
            #"{"status":21005,"is-retryable":true}"#,
            #"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#,
            JSONValue.object(["signedTransactionInfo": .string(info)]).serialized(),
            #"{"signedTransactions":"not a list"}"#,
        ]
        let result = ledger(
            ["reconcile", "--data", workspace.data] + workspace.verifyFlags + [workspace.file("mixed.jsonl", lines)])
        #expect(result.code == 1)
        #expect(result.json == .object(["appended": 0, "alreadyKnown": 0, "rejected": 3]))
        #expect(result.err.contains("document 2: legacy receipt status 21005"), "\(result.err)")
        #expect(result.err.contains("document 3: an App Store Server API error response (errorCode 4040010"))
        let statuses = ledger(["quarantine", "--data", workspace.data, "--json"]).json?.array?.map { $0["status"] }
        #expect(statuses == ["INVALID_RECEIPT", "UNRECOGNIZED_DOCUMENT", "INVALID_RESPONSE"])
        #expect(ledger(["digest", "--data", workspace.data, "--json"]).json?["seq"] == 0, "nothing appended")
        let good = ledger(
            ["reconcile", "--data", workspace.data] + workspace.verifyFlags
                + [workspace.file("good.jsonl", [lines[0], lines[3]])])
        #expect(good.json == .object(["appended": 2, "alreadyKnown": 0, "rejected": 0]), "\(good.err)")
        let history = ledger(["history", "--data", workspace.data, "--user", "42", "--json"]).json?.array ?? []
        #expect(history.count == 2, "the history page's transaction and Get Transaction Info's")
    }

    @Test func aLastPageWithMoreToComeIsImportedWithAWarning() throws {
        let signed = try workspace.pki.sign(TestPKI.Payloads.transaction(transactionId: "2000000000000006"))
        let page = JSONValue.object([
            "signedTransactions": [.string(signed)], "revision": "next-token", "hasMore": true,
            "environment": "Sandbox",
        ])
        let result = ledger(
            ["reconcile", "--data", workspace.data] + workspace.verifyFlags
                + [workspace.file("partial.json", [page.serialized()])])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.json?["appended"] == 1)
        #expect(result.err.contains("hasMore: Apple holds more; fetch the next page with revision next-token"))
        // A complete history (its last page says hasMore false) gives no warning.
        let complete = ledger(
            ["reconcile", "--data", workspace.data] + workspace.verifyFlags
                + [workspace.file("complete.json", [try historyPage(["2000000000000007"])])])
        #expect(!complete.err.contains("hasMore"))
    }

    @Test func aLegacyCopyNeverTakesApplesSignedPrice() throws {
        // A legacy receipt states no price. Dated when it was fetched, its copy of a transaction is the latest
        // version; the sales report still counts the signed price, sold and refunded.
        let signed = TestPKI.Payloads.signedDate
        func legacy(_ transactionId: String) -> String {
            #"{"status":0,"environment":"Sandbox","receipt":{"request_date_ms":"\#(signed + 2 * 86_400_000)","#
                + #""bundle_id":"\#(TestPKI.bundleId)"},"latest_receipt_info":[{"quantity":"1","#
                + #""product_id":"com.visla.gps.monthly_3","transaction_id":"\#(transactionId)","#
                + #""original_transaction_id":"2000000000000001","purchase_date_ms":"\#(signed - 86_400_000)","#
                + #""expires_date_ms":"\#(signed + 29 * 86_400_000)","cancellation_date_ms":"\#(signed + 86_400_000)","#
                + #""app_account_token":"0000002a-0000-0000-0000-000000000000"}]}"#
        }
        func reconcile(_ name: String, _ body: String) -> CommandResult {
            ledger(["reconcile", "--data", workspace.data] + workspace.verifyFlags + [workspace.file(name, [body])])
        }
        // The signed page first, then the legacy copy; and for another transaction the other way round.
        #expect(reconcile("h1.json", try historyPage(["2000000000000002"])).json?["appended"] == 1)
        #expect(reconcile("l1.json", legacy("2000000000000002")).json?["appended"] == 1)
        #expect(reconcile("l2.json", legacy("2000000000000003")).json?["appended"] == 1)
        let late = reconcile("h2.json", try historyPage(["2000000000000003"]))
        #expect(late.json?["appended"] == 1, "the signed version brings the price the legacy copy lacks")
        let report = ledger([
            "report", "sales", "--data", workspace.data, "--from", "2026-02-01T00:00:00Z", "--to",
            "2026-04-01T00:00:00Z", "--by", "month", "--csv",
        ])
        #expect(report.code == 0, "\(report.err)")
        let lines = report.out.split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        func cell(_ period: String, _ column: String) -> String? {
            guard let header = lines.first, let at = header.firstIndex(of: column) else { return nil }
            return lines.first { $0.first == period && $0.contains("com.visla.gps.monthly_3") }?[at]
        }
        // Bought on 2026-02-28 (11.70 EUR each, as Apple signed it), cancelled on 2026-03-02.
        #expect(cell("2026-02", "sales") == "23.40", "\(report.out)")
        #expect(cell("2026-03", "refunds") == "-2", "\(report.out)")
        #expect(cell("2026-03", "refunded") == "-23.40", "\(report.out)")
    }

    @Test func aSandboxReceiptSentToProductionIsRefused() {
        let file = workspace.file("r.json", [#"{"status":21007}"#])
        let result = ledger(["reconcile", "--data", workspace.data] + workspace.verifyFlags + [file])
        #expect(result.code == 1)
        #expect(result.err.contains("21007"))
    }
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: Character(target), omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
