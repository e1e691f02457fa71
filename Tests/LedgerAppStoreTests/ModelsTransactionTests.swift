import LedgerAppStore
import LedgerCore
import LedgerJSON
import Testing

@Suite struct ModelsTransactionTests {
    @Test func decodesEveryTransactionFieldWithItsUnit() throws {
        let t = try TransactionPayload(json: Fixture.fullTransaction)
        #expect(t.originalTransactionId == "2000000912345678")
        #expect(t.transactionId == "2000000912349999")
        #expect(t.webOrderLineItemId == "2000000088887777")
        #expect(t.bundleId == "com.visla.gps")
        #expect(t.productId == "com.visla.gps.monthly_3")
        #expect(t.subscriptionGroupIdentifier == "21752814")
        #expect(t.purchaseDate == Instant(milliseconds: 1_759_302_552_000))
        #expect(t.originalPurchaseDate == Instant(milliseconds: 1_756_710_552_000))
        #expect(t.expiresDate == Instant(milliseconds: 1_761_980_952_000))
        #expect(t.quantity == 1)
        #expect(t.type == .autoRenewable)
        #expect(t.appAccountToken == Fixture.user42Token)  // canonical lower-case
        #expect(t.inAppOwnershipType == .purchased)
        #expect(t.signedDate == Instant(milliseconds: 1_759_302_518_835))
        #expect(t.revocationReason == .appIssue)
        #expect(t.revocationDate == Instant(milliseconds: 1_760_000_000_000))
        #expect(t.isUpgraded == false)
        #expect(t.offerType == .winBack)
        #expect(t.offerIdentifier == "winback_2025")
        #expect(t.environment == .sandbox)
        #expect(t.storefront == "ITA")
        #expect(t.storefrontId == "143450")
        #expect(t.transactionReason == .renewal)
        #expect(t.currency == "EUR")
        #expect(t.price == 11_700)  // milliunits: 11.70 EUR
        #expect(Money(milliunits: try #require(t.price), currency: "EUR").decimalString == "11.70")
        #expect(t.offerDiscountType == .payAsYouGo)
        #expect(t.appTransactionId == "704289572311805521")
        #expect(t.offerPeriod == "P1M")
        #expect(t.revocationType == .refundProrated)
        #expect(t.revocationPercentage == 50_000)  // milliunits of a percent: 50%
        #expect(t.advancedCommerceInfo?["requestReferenceId"] == "r-1")
        #expect(t.billingPlanType == .monthly)
        let commitment = try #require(t.commitmentInfo)
        #expect(commitment.billingPeriodNumber == 2)
        #expect(commitment.commitmentExpiresDate == Instant(milliseconds: 1_790_838_552_000))
        #expect(commitment.commitmentPrice == 140_400)
        #expect(commitment.totalBillingPeriods == 12)
        #expect(t.raw == Fixture.fullTransaction)
    }

    @Test func decodesAMinimalTransactionWithEveryOptionalFieldAbsent() throws {
        let minimal = Fixture.json(
            """
            {"originalTransactionId":"1","transactionId":"1","productId":"com.visla.gps.annual_1",
             "purchaseDate":1700000000000,"signedDate":1700000000500}
            """)
        let t = try TransactionPayload(json: minimal)
        #expect(t.expiresDate == nil && t.appAccountToken == nil && t.environment == nil && t.price == nil)
        #expect(t.isUpgraded == nil && t.type == nil && t.commitmentInfo == nil && t.advancedCommerceInfo == nil)
        let facts = TransactionFacts(t)
        #expect(facts.isUpgraded == false)
        #expect(facts.expiresDate == nil)
    }

    @Test(arguments: ["originalTransactionId", "transactionId", "productId", "purchaseDate", "signedDate"])
    func refusesATransactionWithoutAnIdentifierOrDateTheLedgerNeeds(key: String) {
        let error = #expect(throws: AppStoreError.self) {
            try TransactionPayload(json: Fixture.transaction([key: nil]))
        }
        #expect(error?.code == .missingField)
        #expect(error?.path == "transaction.\(key)")
    }

    @Test(
        arguments: [
            ("price", JSONValue.string("11.70"), AppStoreError.Code.wrongType),
            ("purchaseDate", "2025-10-01 08:00:00 Etc/GMT", .wrongType),
            ("expiresDate", .bool(true), .wrongType),
            ("isUpgraded", "true", .wrongType),
            ("quantity", .integer(1 << 40), .invalidValue),
            ("revocationPercentage", "50000", .wrongType),
            ("offerType", "1", .wrongType),
            ("transactionId", .integer(2_000_000_912_349_999), .wrongType),
            ("commitmentInfo", .array([]), .wrongType),
            ("advancedCommerceInfo", "x", .wrongType),
        ] as [(String, JSONValue, AppStoreError.Code)])
    func rejectsAKnownFieldOfTheWrongType(key: String, value: JSONValue, code: AppStoreError.Code) {
        let error = #expect(throws: AppStoreError.self) {
            try TransactionPayload(json: Fixture.transaction([key: value]))
        }
        #expect(error?.code == code)
        #expect(error?.path == "transaction.\(key)")
    }

    /// Foundation's JSONDecoder reads a number whose value is exactly an integer in range into an integer
    /// field however it is written; so do the models.
    @Test func readsIntegersWrittenWithAFractionOrExponentAsFoundationDoes() throws {
        func number(_ text: String) throws -> JSONValue { try JSONValue.parse(text) }
        let t = try TransactionPayload(
            json: Fixture.transaction([
                "quantity": try number("1.0"), "price": try number("1.17e4"),
                "revocationPercentage": try number("5E4"), "offerType": try number("2.0"),
                "revocationReason": try number("1e0"), "purchaseDate": try number("1.759302552e12"),
            ]))
        #expect(t.quantity == 1)
        #expect(t.price == 11_700)
        #expect(t.revocationPercentage == 50_000)
        #expect(t.offerType == .promotional)
        #expect(t.revocationReason == .appIssue)
        #expect(t.purchaseDate == Instant(milliseconds: 1_759_302_552_000))
    }

    @Test(
        arguments: [
            ("quantity", "1.5", AppStoreError.Code.wrongType),
            ("price", "11700.5", .wrongType),
            ("price", "1e19", .wrongType),
            ("offerType", "1.5", .wrongType),
            ("revocationReason", "0.5", .wrongType),
            ("revocationPercentage", "5.00001e4", .wrongType),
            ("quantity", "4294967297", .invalidValue),
            ("quantity", "4.294967297e9", .invalidValue),
        ] as [(String, String, AppStoreError.Code)])
    func rejectsAFractionalOrOutOfRangeInteger(key: String, text: String, code: AppStoreError.Code) throws {
        let json = Fixture.transaction([key: try JSONValue.parse(text)])
        let error = #expect(throws: AppStoreError.self) { try TransactionPayload(json: json) }
        #expect(error?.code == code)
        #expect(error?.path == "transaction.\(key)")
    }

    @Test func keepsTruncatingFractionalMillisecondsInDates() throws {
        let json = Fixture.transaction(["expiresDate": try JSONValue.parse("1761980952000.9")])
        #expect(try TransactionPayload(json: json).expiresDate == Instant(milliseconds: 1_761_980_952_000))
    }

    @Test func namesTheNestedPathOfAWrongCommitmentField() {
        let json = Fixture.transaction(["commitmentInfo": .object(["commitmentPrice": "140.40"])])
        let error = #expect(throws: AppStoreError.self) { try TransactionPayload(json: json) }
        #expect(error?.path == "transaction.commitmentInfo.commitmentPrice")
    }

    @Test func keepsUnknownEnumerationValuesRaw() throws {
        let t = try TransactionPayload(
            json: Fixture.transaction([
                "offerType": 9, "revocationType": "REFUND_CREDIT", "type": "Bundle",
                "inAppOwnershipType": "GIFTED", "transactionReason": "RESTORE", "offerDiscountType": "BOGO",
            ]))
        #expect(t.offerType?.rawValue == 9 && t.offerType?.isKnown == false)
        #expect(t.revocationType?.rawValue == "REFUND_CREDIT")
        #expect(t.type?.rawValue == "Bundle")
        let facts = TransactionFacts(t)
        #expect(facts.offerType == 9)
        #expect(facts.revocationType == "REFUND_CREDIT")
        #expect(facts.inAppOwnershipType == "GIFTED")
        #expect(facts.transactionReason == "RESTORE")
        #expect(facts.offerDiscountType == "BOGO")
    }

    @Test func keepsANonUUIDAccountTokenAsSent() throws {
        let t = try TransactionPayload(json: Fixture.transaction(["appAccountToken": "legacy-user-7"]))
        #expect(t.appAccountToken == "legacy-user-7")
    }

    @Test func convertsATransactionFieldByFieldIntoLedgerFacts() throws {
        let facts = TransactionFacts(try TransactionPayload(json: Fixture.fullTransaction))
        #expect(facts.transactionId == "2000000912349999")
        #expect(facts.originalTransactionId == Fixture.otid)
        #expect(facts.webOrderLineItemId == "2000000088887777")
        #expect(facts.productId == "com.visla.gps.monthly_3")
        #expect(facts.subscriptionGroupIdentifier == "21752814")
        #expect(facts.purchaseDate == Instant(milliseconds: 1_759_302_552_000))
        #expect(facts.originalPurchaseDate == Instant(milliseconds: 1_756_710_552_000))
        #expect(facts.expiresDate == Instant(milliseconds: 1_761_980_952_000))
        #expect(facts.type == "Auto-Renewable Subscription")
        #expect(facts.appAccountToken == Fixture.user42Token)
        #expect(facts.inAppOwnershipType == "PURCHASED")
        #expect(facts.revocationDate == Instant(milliseconds: 1_760_000_000_000))
        #expect(facts.revocationReason == 1)
        #expect(facts.revocationType == "REFUND_PRORATED")
        #expect(facts.revocationPercentage == 50_000)
        #expect(facts.isUpgraded == false)
        #expect(facts.price == 11_700)
        #expect(facts.currency == "EUR")
        #expect(facts.offerType == 4)
        #expect(facts.offerIdentifier == "winback_2025")
        #expect(facts.offerDiscountType == "PAY_AS_YOU_GO")
        #expect(facts.transactionReason == "RENEWAL")
        #expect(facts.storefront == "ITA")
        #expect(facts.quantity == 1)
        #expect(facts.signedDate == Instant(milliseconds: 1_759_302_518_835))
    }
}
