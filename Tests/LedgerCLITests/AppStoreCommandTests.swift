import LedgerJSON
import LedgerTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `ledger appstore …` against the fake App Store Server API.
@Suite struct AppStoreCommandTests {
    typealias Space = ReconcileFromAPITests.APIWorkspace

    func appstore(_ space: Space, _ arguments: [String], verifyFlags: [String]? = nil) -> CommandResult {
        ledger(
            ["appstore"] + arguments
                + ["--key-file", space.keyFile, "--key-id", ReconcileFromAPITests.keyId]
                + ["--issuer-id", ReconcileFromAPITests.issuerId, "--api-base-url", space.url]
                + ["--data", space.workspace.data] + (verifyFlags ?? space.workspace.verifyFlags))
    }

    /// Apple's answers to extend and consumption carry no signed data: no trust root is asked for; the
    /// commands that print signed data still refuse to run without one.
    @Test func theChangesNeedNoTrustRootSinceTheyVerifyNothing() throws {
        let space = try Space(serving: [])
        defer { space.fake.stop() }
        let flags = ["--environment", "sandbox", "--bundle-id", TestPKI.bundleId]
        let extended = appstore(
            space, ["extend", "3000000000000001", "--days", "2", "--reason-code", "1"], verifyFlags: flags)
        #expect(extended.code == 0, "\(extended.err)")
        let request: JSONObject = [
            "customerConsented": true, "deliveryStatus": "DELIVERED", "sampleContentProvided": false,
        ]
        let file = space.workspace.file("consumption.json", [JSONValue.object(request).serialized()])
        let sent = appstore(space, ["consumption", "4000000000000001", "--file", file], verifyFlags: flags)
        #expect(sent.code == 0, "\(sent.err)")
        #expect(space.fake.changes.count == 2)
        let history = appstore(space, ["history", "3000000000000001"], verifyFlags: flags)
        #expect(history.code == 64)
        #expect(history.err.contains("no trust root"))
    }

    @Test func historyPrintsEveryPageVerifiedAndDecodedAndWritesNothing() throws {
        let items = Array(ReconcileFromAPITests.fixture.items.prefix(300))
        let space = try Space(serving: items)
        defer { space.fake.stop() }
        let otid = items[0].originalTransactionId
        let result = appstore(space, ["history", otid, "--json"])
        #expect(result.code == 0, "\(result.err)")
        let transactions = result.json?["signedTransactions"]?.array ?? []
        // 300 notifications over 100 subscriptions: 3 transactions for this one.
        #expect(transactions.count == 3)
        #expect(transactions.allSatisfy { $0["originalTransactionId"] == .string(otid) })
        #expect(result.json?["environment"] == .string("Sandbox"))
        let text = appstore(space, ["transaction", otid])
        #expect(text.code == 0, "\(text.err)")
        // Get Transaction Info answers the subscription's latest transaction, the 201st notification's.
        #expect(text.out.hasPrefix("4000000000000200  com.visla.gps.monthly_3  purchased "))
        // Nothing written: not even the data directory.
        #expect(access(space.workspace.data, F_OK) != 0)
    }

    /// Support's path from the order id on Apple's receipt email: Apple's transactions, then each subscription as
    /// the ledger knows it, with its owner; nothing is linked or written.
    @Test func anOrderNamesItsSubscriptionsOwnerAndStateAndLinksNothing() throws {
        let items = Array(ReconcileFromAPITests.fixture.items.prefix(300))
        let space = try Space(serving: items)
        defer { space.fake.stop() }
        space.ingest(items[0..<3])
        let known = items[0]
        let unknown = try #require(
            items.first { item in !items[0..<3].contains { $0.originalTransactionId == item.originalTransactionId } })
        space.fake.addOrder("MQ7Z2XK1PN", signedTransactions: [known.signedTransaction, unknown.signedTransaction])
        let before = space.digest()

        let json = appstore(space, ["order", "MQ7Z2XK1PN", "--json"])
        #expect(json.code == 0, "\(json.err)")
        let ledger = json.json?["ledger"]?.array ?? []
        #expect(
            ledger.map { $0["originalTransactionId"]?.string } == [
                known.originalTransactionId, unknown.originalTransactionId,
            ])
        #expect(ledger.first?["known"] == .bool(true))
        #expect(ledger.first?["state"]?["status"]?.string != nil)
        #expect(ledger.last?["known"] == .bool(false))
        #expect(ledger.last?["state"] == .null)

        let text = appstore(space, ["order", "MQ7Z2XK1PN"])
        #expect(text.code == 0, "\(text.err)")
        #expect(text.out.contains("subscription \(known.originalTransactionId): "))
        #expect(text.out.contains("device limit"))
        #expect(text.out.contains("subscription \(unknown.originalTransactionId): the ledger holds no record of it"))
        #expect(space.digest() == before, "nothing appended")

        let missing = appstore(space, ["order", "NOSUCHORDER"])
        #expect(missing.code == 1)
        #expect(missing.err.contains("Apple knows no order NOSUCHORDER"))
    }

    @Test func extendSendsApplesFieldsUnderOneRequestIdAndRefusesBadValuesBeforeSending() throws {
        let space = try Space(serving: [])
        defer { space.fake.stop() }
        let requestId = "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"
        let result = appstore(
            space, ["extend", "3000000000000001", "--days", "7", "--reason-code", "3", "--request-id", requestId])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.out.hasPrefix("extended 3000000000000001 by 7 days: renews "))
        #expect(result.out.contains("(request id \(requestId))"))
        let sent = space.fake.changes
        #expect(sent.map(\.path) == ["/inApps/v1/subscriptions/extend/3000000000000001"])
        #expect(sent.first?.body["extendByDays"] == .integer(7))
        #expect(sent.first?.body["extendReasonCode"] == .integer(3))
        #expect(sent.first?.body["requestIdentifier"] == .string(requestId))
        // Without --request-id, one is made (a version 4 UUID) and printed for a retry.
        let made = appstore(space, ["extend", "3000000000000001", "--days", "1", "--reason-code", "0", "--json"])
        #expect(made.code == 0, "\(made.err)")
        let madeId = made.json?["requestIdentifier"]?.string ?? ""
        #expect(madeId.count == 36 && Array(madeId)[14] == "4")
        #expect(space.fake.changes.last?.body["requestIdentifier"] == .string(madeId))
        for (arguments, message) in [
            (["--days", "91", "--reason-code", "0"], "--days '91' is not an integer in 1...90"),
            (["--days", "3", "--reason-code", "4"], "--reason-code '4' is not an integer in 0...3"),
            (["--reason-code", "1"], "needs --days"),
            (["--days", "3", "--reason-code", "1", "--request-id", "not-a-uuid"], "is not a UUID"),
        ] {
            let refused = appstore(space, ["extend", "3000000000000001"] + arguments)
            #expect(refused.code == 64, "\(arguments)")
            #expect(refused.err.contains(message), "\(refused.err)")
        }
        #expect(space.fake.changes.count == 2, "nothing refused was sent")
    }

    @Test func consumptionSendsACheckedRequestAndRefusesOneWithoutConsent() throws {
        let space = try Space(serving: [])
        defer { space.fake.stop() }
        let request: JSONObject = [
            "customerConsented": true, "deliveryStatus": "DELIVERED", "sampleContentProvided": false,
            "refundPreference": "DECLINE",
        ]
        let good = space.workspace.file("consumption.json", [JSONValue.object(request).serialized()])
        let sent = appstore(space, ["consumption", "4000000000000001", "--file", good])
        #expect(sent.code == 0, "\(sent.err)")
        #expect(space.fake.changes.map(\.path) == ["/inApps/v2/transactions/consumption/4000000000000001"])
        #expect(space.fake.changes.first?.body == .object(request))
        for (change, message) in [
            ({ (r: inout JSONObject) in r["customerConsented"] = false }, "customerConsented must be true"),
            ({ (r: inout JSONObject) in r["deliveryStatus"] = 0 }, "deliveryStatus is missing"),
            ({ (r: inout JSONObject) in r["deliveryStatus"] = "LOST" }, "deliveryStatus must be one of DELIVERED"),
            ({ (r: inout JSONObject) in r["sampleContentProvided"] = nil }, "sampleContentProvided must be true or"),
            ({ (r: inout JSONObject) in r["playTime"] = 1 }, "unknown field 'playTime'"),
            ({ (r: inout JSONObject) in r["consumptionPercentage"] = 100_001 }, "from 0 to 100000"),
            ({ (r: inout JSONObject) in r["refundPreference"] = "MAYBE" }, "refundPreference must be one of"),
        ] {
            var bad = request
            change(&bad)
            let file = space.workspace.file("bad.json", [JSONValue.object(bad).serialized()])
            let refused = appstore(space, ["consumption", "4000000000000001", "--file", file])
            #expect(refused.code == 64)
            #expect(refused.err.contains(message), "\(refused.err)")
        }
        #expect(space.fake.changes.count == 1, "nothing refused was sent")
    }

    @Test func aTamperedTransactionIsNamedWithItsStatus() throws {
        let items = Array(ReconcileFromAPITests.fixture.items.prefix(1))
        let space = try Space(serving: [])
        defer { space.fake.stop() }
        space.fake.addTransactions([APIHistoryFixture.tampered(items[0].signedTransaction)], ids: ["T1"])
        let result = appstore(space, ["history", "T1", "--json"])
        #expect(result.code == 1)
        #expect(result.json?["valid"] == .bool(false))
        let status = result.json?["status"]?.string ?? ""
        #expect(["VERIFICATION_FAILURE", "INVALID_JWT_FORMAT"].contains(status))
    }

    @Test func aTestNotificationIsRequestedThenItsStatusVerified() throws {
        let space = try Space(serving: [])
        defer { space.fake.stop() }
        let pki = TestPKI.shared
        let data = TestPKI.Payloads.notificationData()
        space.fake.setTestNotification(
            try pki.sign(TestPKI.Payloads.notification(type: "TEST", uuid: TestPKI.Payloads.uuid(77), data: data)))
        let requested = appstore(space, ["test-notification"])
        #expect(requested.code == 0, "\(requested.err)")
        let token = requested.out.trimmingSuffixNewline
        #expect(!token.isEmpty)
        let status = appstore(space, ["test-notification", token, "--json"])
        #expect(status.code == 0, "\(status.err)")
        #expect(status.json?["signedPayload"]?["notificationType"] == .string("TEST"))
        #expect(status.json?["sendAttemptResults"]?.array?.first?["sendAttemptResult"] == .string("SUCCESS"))
        let unknown = appstore(space, ["test-notification", "nope"])
        #expect(unknown.code == 1)
        #expect(unknown.err.contains("TestNotificationNotFoundError"))
    }

    @Test func anUnknownSubcommandIsAUsageError() throws {
        let space = try Space(serving: [])
        defer { space.fake.stop() }
        let result = appstore(space, ["hystory", "1"])
        #expect(result.code == 64)
        #expect(result.err.hasPrefix("error: unknown appstore subcommand 'hystory'"))
        let missing = appstore(space, ["transaction", "404"])
        #expect(missing.code == 1)
        #expect(missing.err.contains("errorCode 4040010 (TransactionIdNotFoundError)"))
    }
}

extension String {
    fileprivate var trimmingSuffixNewline: String {
        var text = self
        while text.last?.isNewline == true { text.removeLast() }
        return text
    }
}
