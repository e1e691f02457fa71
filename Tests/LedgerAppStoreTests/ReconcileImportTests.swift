import LedgerAppStore
import LedgerCore
import LedgerCrypto
import LedgerJSON
import Testing

/// Whole documents through `records(environment:verify:)`, with a verifier that knows a fixed set
/// of genuine payloads and refuses anything else, as a real one refuses a bad signature.
@Suite struct ReconcileImportTests {
    struct BadSignature: Error {}

    static let genuine: [String: JSONValue] = [
        "eyJ.t.1": Fixture.transaction(),
        "eyJ.t.2": Fixture.transaction(["transactionId": "2000000912350000", "signedDate": 1_761_980_960_000]),
        "eyJ.r.1": Fixture.renewal(),
        "eyJ.wrong": Fixture.transaction(["price": "11.70"]),
    ]

    static func verify(_ jws: String) throws -> JSONValue {
        guard let payload = genuine[jws] else { throw BadSignature() }
        return payload
    }

    @Test func importsEveryVerifiedHistoryTransactionAndRefusesTheRestOneByOne() throws {
        let page = Fixture.json(
            #"{"environment":"Sandbox","signedTransactions":["eyJ.t.1","eyJ.forged","eyJ.t.2","eyJ.wrong"]}"#)
        let outcome = try ReconcileDocument.parse(page).records(verify: Self.verify)
        #expect(outcome.entries.map(\.record.transaction?.transactionId) == ["2000000912349999", "2000000912350000"])
        #expect(outcome.entries.allSatisfy { $0.record.source == .transactionHistory })
        let first = try #require(outcome.entries.first)
        #expect(first.evidencePayload == Array("eyJ.t.1".utf8))
        #expect(first.record.evidence == SHA256.hash(Array("eyJ.t.1".utf8)))
        #expect(outcome.rejections.map(\.location) == ["signedTransactions[1]", "signedTransactions[3]"])
        #expect(outcome.rejections[0].error is BadSignature)
        #expect((outcome.rejections[1].error as? AppStoreError)?.code == .wrongType)
    }

    @Test func importsSubscriptionStatusesWithTheirRenewalInfo() throws {
        let response = Fixture.json(
            """
            {"environment":"Sandbox","data":[{"subscriptionGroupIdentifier":"21752814","lastTransactions":[
              {"originalTransactionId":"2000000912345678","status":1,"signedTransactionInfo":"eyJ.t.1",
               "signedRenewalInfo":"eyJ.r.1"},
              {"originalTransactionId":"2000000912345678","status":1,"signedRenewalInfo":"eyJ.r.1"},
              {"originalTransactionId":"2000000912345678","status":1,"signedTransactionInfo":"eyJ.t.1",
               "signedRenewalInfo":"eyJ.forged"}]}]}
            """)
        let outcome = try ReconcileDocument.parse(response).records(verify: Self.verify)
        #expect(outcome.entries.count == 1)
        let entry = try #require(outcome.entries.first)
        #expect(entry.record.source == .subscriptionStatus)
        #expect(entry.record.renewal?.autoRenewStatus == true)
        #expect(entry.record.evidence == SHA256.hash(try #require(entry.evidencePayload)))
        #expect(
            outcome.rejections.map(\.location) == ["data[0].lastTransactions[1]", "data[0].lastTransactions[2]"])
        #expect((outcome.rejections[0].error as? AppStoreError)?.code == .missingField)
    }

    @Test func importsALegacyReceiptWithoutVerifyingAnything() throws {
        let outcome = try ReconcileDocument.parse(ReconcileLegacyTests.expired).records(environment: .sandbox) {
            _ in
            Issue.record("a legacy receipt has nothing to verify")
            throw BadSignature()
        }
        #expect(outcome.entries.count == 2)
        #expect(outcome.entries.allSatisfy { $0.evidencePayload == nil && $0.record.environment == .sandbox })
        #expect(outcome.rejections.isEmpty)
    }

    @Test func refusesALegacyReceiptAsAWholeWhenItCannotBePlaced() throws {
        let outcome = try ReconcileDocument.parse(ReconcileLegacyTests.expired).records(verify: Self.verify)
        #expect(outcome.entries.isEmpty)
        #expect(outcome.rejections.count == 1)
        #expect((outcome.rejections.first?.error as? AppStoreError)?.code == .missingField)
    }
}
