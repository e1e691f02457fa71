import LedgerAppStore
import LedgerCore
import LedgerJSON
import Testing

/// `ledger reconcile` appends only facts the log lacks: these are the decisions it takes.
@Suite struct ReconcileKnownFactsTests {
    private func history(_ changes: [String: JSONValue?]) throws -> LedgerRecord {
        try LedgerRecord(historyTransaction: Fixture.transactionPayload(changes), evidence: nil)
    }

    private func notification(_ changes: [String: JSONValue?], renewal: [String: JSONValue?] = [:]) throws
        -> LedgerRecord
    {
        let payload = try NotificationPayload(
            json: Fixture.notification("DID_RENEW", members: ["data": Fixture.data()]))
        return try LedgerRecord(
            notification: payload, transaction: Fixture.transactionPayload(changes),
            renewal: Fixture.renewalPayload(renewal), evidence: nil)
    }

    @Test func anUnknownTransactionIsNews() throws {
        let known = KnownFacts()
        #expect(known.adds(try history([:])))
    }

    @Test func aReSignedUnchangedTransactionIsNotNews() throws {
        var known = KnownFacts()
        known.learn(try notification(["signedDate": 1_759_302_518_835]))
        #expect(!known.adds(try history(["signedDate": 1_759_900_000_000])))
    }

    @Test func aRefundTheWebhookMissedIsNewsAndSoIsItsReversal() throws {
        var known = KnownFacts()
        known.learn(try notification(["signedDate": 1_759_302_518_835]))
        let refund = try history(["signedDate": 1_760_000_100_000, "revocationDate": 1_760_000_000_000])
        #expect(known.adds(refund))
        known.learn(refund)
        // The reversal brings back the first content; it is news because the latest known is the refund.
        #expect(known.adds(try history(["signedDate": 1_760_500_000_000])))
        // Another copy of the refunded state, re-signed before the reversal was known, adds nothing.
        #expect(!known.adds(try history(["signedDate": 1_760_000_200_000, "revocationDate": 1_760_000_000_000])))
    }

    @Test func aSignedPriceIsNewsAfterALegacyCopyWithoutOne() throws {
        var known = KnownFacts()
        // A legacy receipt's copy: the same state, no price or currency (verifyReceipt states none).
        known.learn(try history(["signedDate": 1_759_302_518_835, "price": nil, "currency": nil]))
        let signed = try history(["signedDate": 1_759_900_000_000])
        #expect(known.adds(signed), "Apple's signed price is a fact the log lacks")
        known.learn(signed)
        #expect(!known.adds(try history(["signedDate": 1_760_000_000_000])), "the same price again is not")
        #expect(!known.adds(try history(["signedDate": 1_760_100_000_000, "price": nil, "currency": nil])))
    }

    @Test func aVersionOlderThanEverythingKnownIsNewsOnlyWhenItDiffers() throws {
        var known = KnownFacts()
        known.learn(try notification(["signedDate": 1_759_302_518_835]))
        #expect(!known.adds(try history(["signedDate": 1_759_000_000_000])))
        #expect(known.adds(try history(["signedDate": 1_759_000_000_000, "expiresDate": 1_759_999_999_000])))
    }

    @Test func aChangedRenewalStateIsNewsEvenWithAKnownTransaction() throws {
        var known = KnownFacts()
        known.learn(try notification(["signedDate": 1_759_302_518_835]))
        let item = try LastTransactionStatus(json: .object([:]), path: "item")
        let same = try LedgerRecord(
            status: item, transaction: Fixture.transactionPayload(["signedDate": 1_759_400_000_000]),
            renewal: Fixture.renewalPayload(["signedDate": 1_759_400_000_000]), evidence: nil)
        #expect(!known.adds(same))
        let turnedOff = try LedgerRecord(
            status: item, transaction: Fixture.transactionPayload(["signedDate": 1_759_400_000_000]),
            renewal: Fixture.renewalPayload(["signedDate": 1_759_400_000_000, "autoRenewStatus": 0]), evidence: nil)
        #expect(known.adds(turnedOff))
    }

    @Test func aLegacyImportOfAlreadyKnownFactsAddsNothing() throws {
        let records = try LegacyReceiptResponse(json: ReconcileLegacyTests.modern).records()
        var known = KnownFacts()
        for record in records { known.learn(record) }
        #expect(records.allSatisfy { !known.adds($0) })
    }
}

extension ReconcileKnownFactsTests {
    @Test func aSparserLegacyCopyOfASignedTransactionIsNotNews() throws {
        var known = KnownFacts()
        known.learn(
            try notification([
                "transactionId": "1000000750000002", "signedDate": 1_607_502_370_000,
                "purchaseDate": 1_607_502_360_000, "expiresDate": 1_610_180_760_000,
                "productId": "com.visla.gps.monthly_3",
            ]))
        let legacy = try LegacyReceiptResponse(json: ReconcileLegacyTests.modern).records()
        let copy = try #require(legacy.first { $0.transaction?.transactionId == "1000000750000002" })
        #expect(copy.transaction?.price == nil)  // the legacy receipt does not state it
        #expect(!known.adds(copy))
    }

    @Test func aFieldTheSignedVersionAddsLaterIsNotNewsButAChangedExpiryIs() throws {
        var known = KnownFacts()
        known.learn(try notification(["signedDate": 1_759_302_518_835, "storefront": nil]))
        #expect(!known.adds(try history(["signedDate": 1_759_900_000_000, "storefront": "ITA"])))
        #expect(known.adds(try history(["signedDate": 1_759_900_000_000, "expiresDate": 1_762_000_000_000])))
    }
}
