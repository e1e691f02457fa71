import LedgerAppStore
import LedgerCore
import LedgerJSON
import Testing

@Suite struct MappingIdentityTests {
    private func record(
        transaction: [String: JSONValue?] = [:], renewal: [String: JSONValue?]? = [:]
    ) throws -> LedgerRecord {
        let members: [String: JSONValue?] = [
            "data": Fixture.data(renewal == nil ? ["signedRenewalInfo": nil] : [:])
        ]
        let payload = try NotificationPayload(json: Fixture.notification("DID_RENEW", members: members))
        return try LedgerRecord(
            notification: payload, transaction: Fixture.transactionPayload(transaction),
            renewal: renewal.map { Fixture.renewalPayload($0) }, evidence: nil)
    }

    @Test func aSchemeTokenNamesTheUser() throws {
        let subject = try record(transaction: ["appAccountToken": "000004D2-0000-0000-0000-000000000000"]).subject
        #expect(subject.userId == 1234)
        #expect(subject.appAccountToken == "000004d2-0000-0000-0000-000000000000")
        #expect(subject.originalTransactionId == Fixture.otid)
    }

    @Test func anyOtherTokenNamesAnAccountOnly() throws {
        let token = "7f3c2a10-55aa-4e1b-9c0d-2b3c4d5e6f70"
        let subject = try record(transaction: ["appAccountToken": .string(token)], renewal: ["appAccountToken": nil])
            .subject
        #expect(subject.appAccountToken == token)
        #expect(subject.userId == nil)
    }

    @Test func withoutATokenTheSubscriptionIsAnOrphanKnownByItsOriginalTransactionId() throws {
        let subject = try record(transaction: ["appAccountToken": nil], renewal: ["appAccountToken": nil]).subject
        #expect(subject == Subject(originalTransactionId: Fixture.otid))
    }

    @Test func theRenewalsTokenServesWhenTheTransactionHasNone() throws {
        let subject = try record(transaction: ["appAccountToken": nil]).subject
        #expect(subject.userId == 42)
    }

    @Test func theTransactionsTokenWinsOverTheRenewals() throws {
        let subject = try record(
            transaction: ["appAccountToken": "00000007-0000-0000-0000-000000000000"],
            renewal: ["appAccountToken": "00000008-0000-0000-0000-000000000000"]
        ).subject
        #expect(subject.userId == 7)
    }

    @Test func refusesASignedMemberWithoutItsVerifiedPayload() throws {
        let payload = try NotificationPayload(
            json: Fixture.notification("DID_RENEW", members: ["data": Fixture.data()]))
        let noTransaction = #expect(throws: AppStoreError.self) {
            try LedgerRecord(notification: payload, transaction: nil, renewal: Fixture.renewalPayload(), evidence: nil)
        }
        #expect(noTransaction?.code == .inconsistent)
        #expect(noTransaction?.path == "data.signedTransactionInfo")
        let noRenewal = #expect(throws: AppStoreError.self) {
            try LedgerRecord(
                notification: payload, transaction: Fixture.transactionPayload(), renewal: nil, evidence: nil)
        }
        #expect(noRenewal?.path == "data.signedRenewalInfo")
    }

    @Test func refusesARenewalOfAnotherSubscription() throws {
        let error = #expect(throws: AppStoreError.self) {
            try record(renewal: ["originalTransactionId": "2000000999999999"])
        }
        #expect(error?.code == .inconsistent)
        #expect(error?.message.contains("2000000999999999") == true)
    }

    @Test func refusesMixedEnvironments() throws {
        let error = #expect(throws: AppStoreError.self) { try record(transaction: ["environment": "Production"]) }
        #expect(error?.code == .inconsistent)
        #expect(error?.message.contains("Production") == true)
    }

    @Test func takesTheEnvironmentFromThePayloadsWhenTheNotificationNamesNone() throws {
        let payload = try NotificationPayload(
            json: Fixture.notification("DID_RENEW", members: ["data": Fixture.data(["environment": nil])]))
        let record = try LedgerRecord(
            notification: payload, transaction: Fixture.transactionPayload(), renewal: Fixture.renewalPayload(),
            evidence: nil)
        #expect(record.environment == .sandbox)
    }

    @Test func refusesANotificationThatNamesNoEnvironmentAnywhere() throws {
        let payload = try NotificationPayload(json: Fixture.notification("TEST", members: ["data": .object([:])]))
        let error = #expect(throws: AppStoreError.self) {
            try LedgerRecord(notification: payload, transaction: nil, renewal: nil, evidence: nil)
        }
        #expect(error?.code == .missingField)
    }
}
