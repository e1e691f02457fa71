import LedgerJSON
import LedgerTesting
import Testing

@Suite struct InspectCommandTests {
    let workspace = Workspace()

    @Test func printsTheDecodedPayloadWithNestedFieldsInPlace() throws {
        let signed = try workspace.pki.signedNotification(type: "DID_RENEW")
        let result = ledger(["inspect"] + workspace.verifyFlags + [workspace.file("n.jws", [signed])])
        #expect(result.code == 0, "\(result.err)")
        let payload = try #require(result.json)
        #expect(payload["notificationType"] == "DID_RENEW")
        #expect(payload["data"]?["signedTransactionInfo"]?["productId"] == "com.visla.gps.monthly_3")
        #expect(payload["data"]?["signedRenewalInfo"]?["autoRenewStatus"] == 1)
    }

    @Test(arguments: [
        ("not a jws", "INVALID_JWT_FORMAT"),
        (#"{"foo":"bar"}"#, "INVALID_JWT_FORMAT"),
    ])
    func reportsTheStatusAsJSON(input: String, status: String) {
        let result = ledger(["inspect", "--json"] + workspace.verifyFlags + [workspace.file("x", [input])])
        #expect(result.code == 1)
        #expect(result.json?["valid"] == false)
        #expect(result.json?["status"] == .string(status))
    }

    @Test func judgesAsApplesLibrariesDoFieldsAppleLeavesOptionalMayBeAbsent() throws {
        // Apple's own vectors: a transaction and renewal info holding only their environment, bundle and date are
        // valid for Apple's verifier (every field of its models is optional); the ledger needs more to record them.
        let date = JSONValue.integer(TestPKI.Payloads.signedDate)
        let transaction = try workspace.pki.sign(
            .object(["environment": "Sandbox", "bundleId": .string(TestPKI.bundleId), "signedDate": date]))
        let renewal = try workspace.pki.sign(.object(["environment": "Sandbox", "signedDate": date]))
        for (kind, signed) in [("transaction", transaction), ("renewal", renewal)] {
            let result = ledger(
                ["inspect", "--json", "--as", kind] + workspace.verifyFlags + [workspace.file("\(kind).jws", [signed])])
            #expect(result.code == 0, "\(kind): \(result.err)")
            #expect(result.json?["environment"] == "Sandbox")
        }
        // A field of the wrong type still fails, as Apple's decoder fails on it.
        let wrong = try workspace.pki.sign(.object(["environment": "Sandbox", "signedDate": "yesterday"]))
        let result = ledger(
            ["inspect", "--json", "--as", "renewal"] + workspace.verifyFlags + [workspace.file("w.jws", [wrong])])
        #expect(result.json?["status"] == "INVALID_JWT_FORMAT")
    }

    @Test func aNestedFieldThatDoesNotVerifyMakesTheNotificationInvalidAsIngestJudgesIt() throws {
        // Apple's model vectors carry placeholders ("signed_transaction_info_value") that its
        // verifyAndDecodeNotification never decodes, and that verifyAndDecodeTransaction refuses. inspect verifies
        // every nested JWS, as ingest does: both refuse it.
        let signed = try workspace.pki.sign(
            TestPKI.Payloads.notification(
                type: "CONSUMPTION_REQUEST",
                data: TestPKI.Payloads.notificationData(signedTransactionInfo: "signed_transaction_info_value")))
        let file = workspace.file("n.jws", [signed])
        let result = ledger(["inspect", "--json"] + workspace.verifyFlags + [file])
        #expect(result.code == 1, "\(result.err)")
        #expect(result.json?["valid"] == false)
        #expect(result.json?["status"] == "INVALID_JWT_FORMAT")
        #expect(result.json?["message"]?.string?.contains("data.signedTransactionInfo") == true)
        let body = workspace.file("n.jsonl", [String(decoding: TestPKI.body(signed), as: UTF8.self)])
        let ingest = ledger(["ingest", "--data", workspace.data] + workspace.verifyFlags + [body])
        #expect(ingest.json?["rejected"] == 1)
    }

    @Test func anInputOverTheBodyLimitIsInvalidNotAnError() {
        let big = String(repeating: "a", count: (1 << 20) + 1)
        let result = ledger(["inspect", "--json"] + workspace.verifyFlags + [workspace.file("big", [big])])
        #expect(result.code == 1)
        #expect(result.json?["valid"] == false)
        #expect(result.json?["status"] == "INVALID_JWT_FORMAT")
        #expect(result.json?["message"]?.string?.contains("1048576-byte limit") == true)
    }

    @Test func wrongBundleIsAnInvalidAppIdentifier() throws {
        let signed = try workspace.pki.signedNotification(bundleId: "com.example.other")
        let result = ledger(["inspect", "--json"] + workspace.verifyFlags + [workspace.file("n.jws", [signed])])
        #expect(result.code == 1)
        #expect(result.json?["status"] == "INVALID_APP_IDENTIFIER")
    }

    @Test func untrustedRootIsAVerificationFailure() throws {
        let stranger = try TestPKI()
        let signed = try stranger.signedNotification()
        let result = ledger(["inspect", "--json"] + workspace.verifyFlags + [workspace.file("n.jws", [signed])])
        #expect(result.code == 1)
        #expect(result.json?["status"] == "VERIFICATION_FAILURE")
    }
}
