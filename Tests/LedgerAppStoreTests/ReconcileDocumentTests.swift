import LedgerAppStore
import LedgerCore
import LedgerJSON
import Testing

@Suite struct ReconcileDocumentTests {
    static let history = Fixture.json(
        """
        {"revision":"1759302552000_2000000912349999","hasMore":true,"bundleId":"com.visla.gps",
         "appAppleId":6450000001,"environment":"Sandbox","signedTransactions":["eyJ.a.1","eyJ.b.2"]}
        """)

    static let statuses = Fixture.json(
        """
        {"environment":"Sandbox","bundleId":"com.visla.gps","appAppleId":6450000001,
         "data":[{"subscriptionGroupIdentifier":"21752814","lastTransactions":[
           {"originalTransactionId":"2000000912345678","status":1,
            "signedTransactionInfo":"eyJ.t.1","signedRenewalInfo":"eyJ.r.1"},
           {"originalTransactionId":"2000000955555555","status":2,
            "signedTransactionInfo":"eyJ.t.2","signedRenewalInfo":"eyJ.r.2"}]}]}
        """)

    @Test func recognisesAndDecodesATransactionHistoryPage() throws {
        guard case .transactionHistory(let page) = try ReconcileDocument.parse(Self.history) else {
            Issue.record("not recognised as transaction history")
            return
        }
        #expect(page.signedTransactions == ["eyJ.a.1", "eyJ.b.2"])
        #expect(page.revision == "1759302552000_2000000912349999")
        #expect(page.hasMore == true)
        #expect(page.bundleId == "com.visla.gps")
        #expect(page.appAppleId == 6_450_000_001)
        #expect(page.environment == .sandbox)
    }

    @Test func recognisesAndDecodesSubscriptionStatuses() throws {
        guard case .subscriptionStatuses(let response) = try ReconcileDocument.parse(Self.statuses) else {
            Issue.record("not recognised as subscription statuses")
            return
        }
        #expect(response.environment == .sandbox)
        #expect(response.data.first?.subscriptionGroupIdentifier == "21752814")
        let items = response.lastTransactions
        #expect(items.map(\.originalTransactionId) == ["2000000912345678", "2000000955555555"])
        #expect(items.map(\.status) == [.active, .expired])
        #expect(items[1].signedTransactionInfo == "eyJ.t.2")
        #expect(items[1].signedRenewalInfo == "eyJ.r.2")
        #expect(try JSONValue.parse(items[0].evidencePayload) == items[0].raw)
    }

    @Test func recognisesALegacyReceipt() throws {
        let json = Fixture.json(#"{"status":0,"environment":"Sandbox","receipt":{"bundle_id":"com.visla.gps"}}"#)
        guard case .legacyReceipt(let receipt) = try ReconcileDocument.parse(json) else {
            Issue.record("not recognised as a legacy receipt")
            return
        }
        #expect(receipt.bundleId == "com.visla.gps")
    }

    @Test func refusesANotificationBodyPointingToIngest() {
        let error = #expect(throws: AppStoreError.self) {
            try ReconcileDocument.parse(Fixture.json(#"{"signedPayload":"eyJ.x.y"}"#))
        }
        #expect(error?.code == .unrecognizedDocument)
        #expect(error?.message.contains("ledger ingest") == true)
    }

    @Test(arguments: [#"{"hello":"world"}"#, "[1,2]", #""text""#])
    func refusesAnythingElse(text: String) {
        let error = #expect(throws: AppStoreError.self) { try ReconcileDocument.parse(Fixture.json(text)) }
        #expect(error?.code == .unrecognizedDocument)
    }

    @Test func refusesAHistoryPageWithAWrongTypedMember() {
        let json = Fixture.changing(Self.history, ["signedTransactions": .array(["eyJ.a.1", .integer(7)])])
        let error = #expect(throws: AppStoreError.self) { try ReconcileDocument.parse(json) }
        #expect(error?.code == .wrongType)
        #expect(error?.path == "signedTransactions[1]")
    }

    @Test func splitsOneDocumentAnArrayOfPagesOrJSONLines() throws {
        let one = Self.history.serialized()
        let pages = JSONValue.array([Self.history, Self.statuses]).serialized(.pretty)
        let lines = "\n" + Self.history.serialized() + "\n\n" + Self.statuses.serialized() + "\r\n"
        #expect(try ReconcileDocument.split(Array(one.utf8)) == [Self.history])
        #expect(try ReconcileDocument.split(Array(pages.utf8)) == [Self.history, Self.statuses])
        #expect(try ReconcileDocument.split(Array(lines.utf8)) == [Self.history, Self.statuses])
        let parsed = try ReconcileDocument.parseAll(Array(lines.utf8))
        #expect(parsed.count == 2)
    }

    @Test func namesTheLineOfUnreadableJSONLines() {
        let text = Self.history.serialized() + "\n{\"status\": 0,\n"
        let error = #expect(throws: AppStoreError.self) { try ReconcileDocument.split(Array(text.utf8)) }
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains("line 2") == true)
        #expect(error?.cause != nil)
    }

    @Test func mapsAVerifiedHistoryTransactionToARecordWithAStableContentKey() throws {
        let payload = Fixture.transactionPayload()
        let record = try LedgerRecord(historyTransaction: payload, evidence: [9])
        #expect(record.source == .transactionHistory)
        #expect(record.idempotencyKey == "txn:2000000912349999:1759302518835")
        #expect(record.environment == .sandbox)
        #expect(record.subject.userId == 42)
        #expect(record.transaction == TransactionFacts(payload))
        #expect(record.notification == nil && record.renewal == nil)
        #expect(record.evidence == [9])
        #expect(try LedgerRecord(historyTransaction: Fixture.transactionPayload(), evidence: [9]) == record)
        let resigned = Fixture.transactionPayload(["signedDate": 1_759_400_000_000])
        #expect(try LedgerRecord(historyTransaction: resigned, evidence: nil).idempotencyKey != record.idempotencyKey)
    }

    @Test func aHistoryTransactionWithoutEnvironmentTakesThePages() throws {
        let payload = Fixture.transactionPayload(["environment": nil])
        let record = try LedgerRecord(historyTransaction: payload, responseEnvironment: .production, evidence: nil)
        #expect(record.environment == .production)
        let error = #expect(throws: AppStoreError.self) { try LedgerRecord(historyTransaction: payload, evidence: nil) }
        #expect(error?.code == .missingField)
    }

    @Test func mapsAVerifiedSubscriptionStatusToOneRecord() throws {
        let item = try LastTransactionStatus(
            json: .object([
                "originalTransactionId": "2000000912345678", "status": 1, "signedTransactionInfo": "a",
                "signedRenewalInfo": "b",
            ]), path: "data[0].lastTransactions[0]")
        let transaction = Fixture.transactionPayload()
        let renewal = Fixture.renewalPayload(["signedDate": 1_759_302_519_000])
        let record = try LedgerRecord(status: item, transaction: transaction, renewal: renewal, evidence: nil)
        #expect(record.source == .subscriptionStatus)
        #expect(record.idempotencyKey == "status:2000000912345678:1759302518835:1759302519000")
        #expect(record.transaction == TransactionFacts(transaction))
        #expect(record.renewal == RenewalFacts(renewal))
        #expect(record.subject.userId == 42)
        let again = try LedgerRecord(status: item, transaction: transaction, renewal: renewal, evidence: nil)
        #expect(again.idempotencyKey == record.idempotencyKey)
        let withoutRenewal = try LedgerRecord(status: nil, transaction: transaction, renewal: nil, evidence: nil)
        #expect(withoutRenewal.idempotencyKey == "status:2000000912345678:1759302518835:-")
    }

    @Test func theItemsStatusStatesTheRetryTheRenewalInfoLeavesOut() throws {
        let transaction = Fixture.transactionPayload()
        let silent = Fixture.renewalPayload(["isInBillingRetryPeriod": nil])
        func retrying(_ status: Int64, _ renewal: RenewalInfoPayload) throws -> Bool? {
            let item = try LastTransactionStatus(
                json: .object(["originalTransactionId": "2000000912345678", "status": .integer(status)]), path: "i")
            return try LedgerRecord(status: item, transaction: transaction, renewal: renewal, evidence: nil)
                .renewal?.isInBillingRetryPeriod
        }
        #expect(try retrying(2, silent) == false, "expired: Apple has stopped retrying")
        #expect(try retrying(3, silent) == true)
        #expect(try retrying(4, silent) == true, "a grace period is part of the retry")
        #expect(try retrying(1, silent) == false)
        #expect(try retrying(9, silent) == nil, "an undocumented status states nothing")
        #expect(try retrying(2, Fixture.renewalPayload(["isInBillingRetryPeriod": true])) == true, "signed wins")
    }

    @Test func refusesAStatusItemWhosePayloadsAreAboutAnotherSubscription() throws {
        let item = try LastTransactionStatus(
            json: Fixture.json(#"{"originalTransactionId":"2000000955555555","status":1}"#), path: "item")
        let error = #expect(throws: AppStoreError.self) {
            try LedgerRecord(
                status: item, transaction: Fixture.transactionPayload(), renewal: Fixture.renewalPayload(),
                evidence: nil)
        }
        #expect(error?.code == .inconsistent)
    }
}
