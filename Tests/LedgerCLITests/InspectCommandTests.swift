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
