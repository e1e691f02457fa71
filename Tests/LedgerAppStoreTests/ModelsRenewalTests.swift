import LedgerAppStore
import LedgerCore
import LedgerJSON
import Testing

@Suite struct ModelsRenewalTests {
    @Test func decodesEveryRenewalFieldWithItsUnit() throws {
        let r = try RenewalInfoPayload(json: Fixture.fullRenewal)
        #expect(r.expirationIntent == .customerCancelled)
        #expect(r.originalTransactionId == Fixture.otid)
        #expect(r.autoRenewProductId == "com.visla.gps.annual_3")
        #expect(r.productId == "com.visla.gps.monthly_3")
        #expect(r.autoRenewStatus == .on)
        #expect(r.isInBillingRetryPeriod == false)
        #expect(r.priceIncreaseStatus == .notResponded)
        #expect(r.gracePeriodExpiresDate == Instant(milliseconds: 1_762_500_000_000))
        #expect(r.offerType == .promotional)
        #expect(r.offerIdentifier == "promo_spring")
        #expect(r.signedDate == Instant(milliseconds: 1_759_302_518_835))
        #expect(r.environment == .sandbox)
        #expect(r.recentSubscriptionStartDate == Instant(milliseconds: 1_756_710_552_000))
        #expect(r.renewalDate == Instant(milliseconds: 1_761_980_952_000))
        #expect(r.currency == "EUR")
        #expect(r.renewalPrice == 84_000)  // milliunits: 84.00 EUR
        #expect(r.offerDiscountType == .payUpFront)
        #expect(r.offerPeriod == "P1Y")
        #expect(r.eligibleWinBackOfferIds == ["wb_1", "wb_2"])
        #expect(r.appAccountToken == Fixture.user42Token)
        #expect(r.appTransactionId == "704289572311805521")
        #expect(r.advancedCommerceInfo?["period"] == "P1M")
        #expect(r.commitmentInfo?.totalBillingPeriods == 12)
        #expect(r.commitmentInfo?.commitmentPrice == nil)
        #expect(r.renewalBillingPlanType == .billedUpfront)
        #expect(r.raw == Fixture.fullRenewal)
    }

    @Test func decodesRenewalInfoWithAutoRenewOffAndNoPrice() throws {
        // Real data: renewalPrice and currency are absent when auto-renew is off.
        let r = try RenewalInfoPayload(
            json: Fixture.renewal(["autoRenewStatus": 0, "renewalPrice": nil, "currency": nil, "expirationIntent": 1]))
        #expect(r.autoRenewStatus == .off)
        #expect(r.renewalPrice == nil && r.currency == nil)
        let facts = RenewalFacts(r)
        #expect(facts.autoRenewStatus == false)
        #expect(facts.renewalPrice == nil)
        #expect(facts.expirationIntent == 1)
    }

    @Test(arguments: [(Int64(1), Optional(true)), (0, false), (7, nil)])
    func mapsAutoRenewStatusToABoolean(raw: Int64, expected: Bool?) {
        let facts = RenewalFacts(Fixture.renewalPayload(["autoRenewStatus": .integer(raw)]))
        #expect(facts.autoRenewStatus == expected)
    }

    @Test(arguments: ["originalTransactionId", "signedDate"])
    func refusesRenewalInfoWithoutItsSubscriptionOrDate(key: String) {
        let error = #expect(throws: AppStoreError.self) { try RenewalInfoPayload(json: Fixture.renewal([key: nil])) }
        #expect(error?.code == .missingField)
        #expect(error?.path == "renewalInfo.\(key)")
    }

    @Test(arguments: [
        ("autoRenewStatus", JSONValue.bool(true)),
        ("isInBillingRetryPeriod", .integer(0)),
        ("eligibleWinBackOfferIds", "wb_1"),
        ("gracePeriodExpiresDate", "soon"),
        ("renewalPrice", .double(.infinity)),
    ])
    func rejectsAKnownRenewalFieldOfTheWrongType(key: String, value: JSONValue) {
        let error = #expect(throws: AppStoreError.self) { try RenewalInfoPayload(json: Fixture.renewal([key: value])) }
        #expect(error?.code == .wrongType)
        #expect(error?.path == "renewalInfo.\(key)")
    }

    @Test func readsIntegersWrittenWithAFractionOrExponentAsFoundationDoes() throws {
        let renewal = try RenewalInfoPayload(
            json: Fixture.renewal([
                "expirationIntent": try JSONValue.parse("1.0"), "renewalPrice": try JSONValue.parse("1.17e4"),
                "priceIncreaseStatus": try JSONValue.parse("0e0"), "autoRenewStatus": try JSONValue.parse("1.0"),
            ]))
        #expect(renewal.expirationIntent == .customerCancelled)
        #expect(renewal.renewalPrice == 11_700)
        #expect(renewal.priceIncreaseStatus?.rawValue == 0)
        #expect(renewal.autoRenewStatus?.rawValue == 1)
    }

    @Test(arguments: [
        ("expirationIntent", "1.5"), ("renewalPrice", "11700.1"), ("priceIncreaseStatus", "0.5"),
        ("autoRenewStatus", "1e-1"), ("offerType", "2.25"),
    ])
    func rejectsAFractionalInteger(key: String, text: String) throws {
        let json = Fixture.renewal([key: try JSONValue.parse(text)])
        let error = #expect(throws: AppStoreError.self) { try RenewalInfoPayload(json: json) }
        #expect(error?.code == .wrongType)
        #expect(error?.path == "renewalInfo.\(key)")
    }

    @Test func namesTheElementOfAWrongWinBackOfferId() {
        let json = Fixture.renewal(["eligibleWinBackOfferIds": .array(["wb_1", .integer(2)])])
        let error = #expect(throws: AppStoreError.self) { try RenewalInfoPayload(json: json) }
        #expect(error?.path == "renewalInfo.eligibleWinBackOfferIds[1]")
    }

    @Test func convertsRenewalInfoFieldByFieldIntoLedgerFacts() throws {
        let facts = RenewalFacts(try RenewalInfoPayload(json: Fixture.fullRenewal))
        #expect(facts.originalTransactionId == Fixture.otid)
        #expect(facts.productId == "com.visla.gps.monthly_3")
        #expect(facts.autoRenewProductId == "com.visla.gps.annual_3")
        #expect(facts.autoRenewStatus == true)
        #expect(facts.isInBillingRetryPeriod == false)
        #expect(facts.gracePeriodExpiresDate == Instant(milliseconds: 1_762_500_000_000))
        #expect(facts.expirationIntent == 1)
        #expect(facts.renewalDate == Instant(milliseconds: 1_761_980_952_000))
        #expect(facts.recentSubscriptionStartDate == Instant(milliseconds: 1_756_710_552_000))
        #expect(facts.priceIncreaseStatus == 0)
        #expect(facts.renewalPrice == 84_000)
        #expect(facts.currency == "EUR")
        #expect(facts.signedDate == Instant(milliseconds: 1_759_302_518_835))
    }

    @Test func knowsEveryDocumentedRenewalEnumerationValue() {
        #expect(ExpirationIntent.allKnown.map(\.rawValue) == [1, 2, 3, 4, 5])
        #expect(AutoRenewStatus.allKnown.map(\.rawValue) == [0, 1])
        #expect(PriceIncreaseStatus.allKnown.map(\.rawValue) == [0, 1])
        #expect(SubscriptionStatus.allKnown.map(\.rawValue) == [1, 2, 3, 4, 5])
        #expect(OfferType.allKnown.map(\.rawValue) == [1, 2, 3, 4])
        #expect(RevocationReason.allKnown.map(\.rawValue) == [0, 1])
    }
}
