import LedgerAppStore
import LedgerCore
import LedgerJSON
import Testing

/// Legacy `verifyReceipt` responses (the seed's Italian Xamarin guide: status 0 valid, 21006 expired;
/// every value a string).
@Suite struct ReconcileLegacyTests {
    /// User 42 bought monthly_1, upgraded to monthly_3 on 9 Dec (the old entry is cancelled at the
    /// upgrade time and marked is_upgraded); an orphan annual trial was refunded.
    static let modern = Fixture.json(
        """
        {"status":0,"environment":"Sandbox",
         "receipt":{"receipt_type":"ProductionSandbox","adam_id":0,"bundle_id":"com.visla.gps",
           "application_version":"637","receipt_creation_date":"2020-11-25 08:26:02 Etc/GMT",
           "receipt_creation_date_ms":"1606292762000","request_date":"2020-12-20 10:00:00 Etc/GMT",
           "request_date_ms":"1608458400000","request_date_pst":"2020-12-20 02:00:00 America/Los_Angeles",
           "in_app":[{"quantity":"1","product_id":"com.visla.gps.monthly_1","transaction_id":"1000000750000001",
             "original_transaction_id":"1000000750000001","purchase_date_ms":"1606292760000",
             "expires_date_ms":"1608884760000","cancellation_date_ms":"1607502360000","cancellation_reason":"0",
             "is_upgraded":"true","app_account_token":"0000002A-0000-0000-0000-000000000000"}]},
         "latest_receipt_info":[
           {"quantity":"1","product_id":"com.visla.gps.monthly_1","transaction_id":"1000000750000001",
            "original_transaction_id":"1000000750000001","purchase_date":"2020-11-25 08:26:00 Etc/GMT",
            "purchase_date_ms":"1606292760000","purchase_date_pst":"2020-11-25 00:26:00 America/Los_Angeles",
            "original_purchase_date_ms":"1606292760000","expires_date":"2020-12-25 08:26:00 Etc/GMT",
            "expires_date_ms":"1608884760000","web_order_line_item_id":"1000000057000001",
            "is_trial_period":"false","is_in_intro_offer_period":"false","is_upgraded":"true",
            "cancellation_date_ms":"1607502360000","cancellation_reason":"0",
            "subscription_group_identifier":"21752814","in_app_ownership_type":"PURCHASED",
            "app_account_token":"0000002A-0000-0000-0000-000000000000"},
           {"quantity":"1","product_id":"com.visla.gps.monthly_3","transaction_id":"1000000750000002",
            "original_transaction_id":"1000000750000001","purchase_date_ms":"1607502360000",
            "original_purchase_date_ms":"1606292760000","expires_date_ms":"1610180760000",
            "web_order_line_item_id":"1000000057000002","is_trial_period":"false",
            "is_in_intro_offer_period":"false","promotional_offer_id":"spring",
            "subscription_group_identifier":"21752814","app_account_token":"0000002a-0000-0000-0000-000000000000"},
           {"quantity":"1","product_id":"com.visla.gps.annual_1","transaction_id":"1000000750000099",
            "original_transaction_id":"1000000750000099","purchase_date_ms":"1601553600000",
            "expires_date_ms":"1633089600000","cancellation_date_ms":"1604307600000","cancellation_reason":"1",
            "is_trial_period":"true","in_app_ownership_type":"FAMILY_SHARED"}],
         "latest_receipt":"MIIT...",
         "pending_renewal_info":[
           {"auto_renew_product_id":"com.visla.gps.monthly_3","product_id":"com.visla.gps.monthly_3",
            "original_transaction_id":"1000000750000001","auto_renew_status":"1",
            "is_in_billing_retry_period":"0","price_increase_status":"1"},
           {"auto_renew_product_id":"com.visla.gps.annual_1","product_id":"com.visla.gps.annual_1",
            "original_transaction_id":"1000000750000099","auto_renew_status":"0","expiration_intent":"1",
            "is_in_billing_retry_period":"0","grace_period_expires_date_ms":"1604912400000"}]}
        """)

    /// An iOS 6-style 21006 response: the receipt is itself the transaction, `expires_date` holds
    /// milliseconds, the latest (expired) renewal is a single object, and no environment is named.
    static let expired = Fixture.json(
        """
        {"status":21006,
         "receipt":{"original_transaction_id":"1000000046178817","transaction_id":"1000000046178817",
           "expires_date":"1363456234000","expires_date_formatted":"2013-03-16 17:50:34 Etc/GMT",
           "quantity":"1","product_id":"com.visla.gps.monthly_2","bid":"com.visla.gps","bvrs":"1.0",
           "purchase_date_ms":"1360864234000","original_purchase_date_ms":"1360864234000"},
         "latest_expired_receipt_info":{"original_transaction_id":"1000000046178817",
           "transaction_id":"1000000046999999","expires_date":"1366134634000","quantity":"1",
           "product_id":"com.visla.gps.monthly_2","purchase_date_ms":"1363456234000"}}
        """)

    @Test func importsAValidReceiptAsUnsignedLegacyRecords() throws {
        let response = try LegacyReceiptResponse(json: Self.modern)
        #expect(response.status == .valid)
        #expect(response.environment == .sandbox)
        #expect(response.bundleId == "com.visla.gps")
        #expect(response.asOf == Instant(milliseconds: 1_608_458_400_000))  // the request date
        let records = try response.records()
        #expect(
            records.map(\.idempotencyKey) == [
                "legacy:1000000750000001:1608884760000:1607502360000",
                "legacy:1000000750000002:1610180760000:-",
                "legacy:1000000750000099:1633089600000:1604307600000",
                "legacy-renewal:1000000750000001:1608458400000",
                "legacy-renewal:1000000750000099:1608458400000",
            ])
        #expect(records.allSatisfy { $0.source == .legacyReceipt && $0.evidence == nil && $0.environment == .sandbox })
        #expect(records.allSatisfy { $0.transaction?.signedDate ?? $0.renewal?.signedDate == response.asOf })
    }

    @Test func mapsCancellationAndUpgradeFields() throws {
        let records = try LegacyReceiptResponse(json: Self.modern).records()
        let upgraded = try #require(records[0].transaction)
        #expect(upgraded.isUpgraded)
        #expect(upgraded.revocationDate == Instant(milliseconds: 1_607_502_360_000))
        #expect(upgraded.revocationReason == 0)
        #expect(upgraded.purchaseDate == Instant(milliseconds: 1_606_292_760_000))
        #expect(upgraded.webOrderLineItemId == "1000000057000001")
        #expect(upgraded.subscriptionGroupIdentifier == "21752814")
        #expect(upgraded.inAppOwnershipType == "PURCHASED")
        #expect(upgraded.quantity == 1)
        #expect(records[0].subject.userId == 42)
        let successor = try #require(records[1].transaction)
        #expect(!successor.isUpgraded && successor.revocationDate == nil)
        #expect(successor.offerType == 2 && successor.offerIdentifier == "spring")
        let refunded = try #require(records[2].transaction)
        #expect(refunded.revocationReason == 1)
        #expect(refunded.offerType == 1 && refunded.offerDiscountType == "FREE_TRIAL")
        #expect(records[2].subject == Subject(originalTransactionId: "1000000750000099"))
    }

    @Test func mapsPendingRenewalInfoToRenewalFactsOfTheRightSubject() throws {
        let records = try LegacyReceiptResponse(json: Self.modern).records()
        let on = try #require(records[3].renewal)
        #expect(on.originalTransactionId == "1000000750000001")
        #expect(on.autoRenewProductId == "com.visla.gps.monthly_3")
        #expect(on.autoRenewStatus == true)
        #expect(on.isInBillingRetryPeriod == false)
        #expect(on.priceIncreaseStatus == 1)
        #expect(records[3].subject.userId == 42)  // the token of its subscription's transactions
        let off = try #require(records[4].renewal)
        #expect(off.autoRenewStatus == false)
        #expect(off.expirationIntent == 1)
        #expect(off.gracePeriodExpiresDate == Instant(milliseconds: 1_604_912_400_000))
        #expect(records[4].subject.appAccountToken == nil)
    }

    @Test func importingTheSameReceiptTwiceGivesTheSameKeys() throws {
        let first = try LegacyReceiptResponse(json: Self.modern).records().map(\.idempotencyKey)
        let again = try ReconcileDocument.parseAll(Array(Self.modern.serialized().utf8))
        guard case .legacyReceipt(let response)? = again.first else {
            Issue.record("not a legacy receipt")
            return
        }
        #expect(try response.records().map(\.idempotencyKey) == first)
    }

    @Test func acceptsStatus21006AndImportsTheExpiredIOS6StyleReceipt() throws {
        let response = try LegacyReceiptResponse(json: Self.expired)
        #expect(response.status == .subscriptionExpired)
        #expect(response.bundleId == "com.visla.gps")
        #expect(response.asOf == Instant(milliseconds: 1_363_456_234_000))  // no request date: latest purchase
        let records = try response.records(environment: .production)
        #expect(
            records.map(\.idempotencyKey) == [
                "legacy:1000000046999999:1366134634000:-", "legacy:1000000046178817:1363456234000:-",
            ])
        #expect(records[1].transaction?.expiresDate == Instant(milliseconds: 1_363_456_234_000))
        #expect(records.allSatisfy { $0.environment == .production })
    }

    @Test func refusesToGuessTheEnvironmentOfAReceiptThatNamesNone() throws {
        let response = try LegacyReceiptResponse(json: Self.expired)
        let error = #expect(throws: AppStoreError.self) { try response.records() }
        #expect(error?.code == .missingField)
    }

    @Test func acceptsTheSeedsSingleObjectLatestReceiptInfo() throws {
        let json = Fixture.json(
            """
            {"status":0,"environment":"Production","receipt":{"request_date_ms":"1608458400000"},
             "latest_receipt":"MIIT...","latest_receipt_info":{"product_id":"com.visla.gps.annual_10",
             "transaction_id":"7","original_transaction_id":"7","purchase_date_ms":"1606292760000",
             "expires_date":"2021-01-09 08:26:00 Etc/GMT"}}
            """)
        let records = try LegacyReceiptResponse(json: json).records()
        #expect(records.count == 1)
        #expect(records[0].transaction?.expiresDate == Instant(milliseconds: 1_610_180_760_000))
        #expect(records[0].transaction?.productId == "com.visla.gps.annual_10")
    }

    @Test func rejectsASandboxReceiptSentToProductionNamingTheStatus() {
        let error = #expect(throws: AppStoreError.self) {
            try ReconcileDocument.parse(Fixture.json(#"{"status":21007}"#))
        }
        #expect(error?.code == .receiptStatus)
        #expect(error?.message.contains("21007") == true)
        #expect(error?.message.contains("sandbox receipt sent to production") == true)
    }

    @Test(arguments: [21000, 21001, 21002, 21003, 21004, 21005, 21008, 21009, 21010, 21100, 21150, 21199, 30000])
    func rejectsEveryOtherNonZeroStatus(status: Int64) {
        let json = JSONValue.object(["status": .integer(status), "environment": "Production"])
        let error = #expect(throws: AppStoreError.self) { try LegacyReceiptResponse(json: json) }
        #expect(error?.code == .receiptStatus)
        #expect(error?.message.contains(String(status)) == true)
        #expect(error?.message.contains(LegacyReceiptStatus(rawValue: status).meaning) == true)
    }

    @Test func acceptsAStatusWrittenAsAString() throws {
        let response = try LegacyReceiptResponse(json: Fixture.json(#"{"status":"21006","environment":"Sandbox"}"#))
        #expect(response.status == .subscriptionExpired)
        #expect(response.transactions.isEmpty)
    }

    @Test(arguments: [
        ("quantity", JSONValue.string("one"), AppStoreError.Code.invalidValue),
        ("is_upgraded", "yes", .invalidValue),
        ("expires_date_ms", "soon", .invalidValue),
        ("product_id", .array([]), .wrongType),
        ("cancellation_reason", .bool(true), .wrongType),
    ])
    func rejectsAMalformedLegacyValueNamingItsPath(key: String, value: JSONValue, code: AppStoreError.Code) {
        let entry = Fixture.changing(Self.modern["latest_receipt_info"]!.array![1], [key: value])
        let json = Fixture.changing(Self.modern, ["latest_receipt_info": .array([entry])])
        let error = #expect(throws: AppStoreError.self) { try LegacyReceiptResponse(json: json) }
        #expect(error?.code == code)
        #expect(error?.path == "latest_receipt_info[0].\(key)")
    }

    @Test func refusesATransactionWithoutAProductNamingWhereItWas() throws {
        let entry = Fixture.changing(Self.modern["latest_receipt_info"]!.array![1], ["product_id": nil])
        let json = Fixture.changing(Self.modern, ["latest_receipt_info": .array([entry])])
        let response = try LegacyReceiptResponse(json: json)
        let error = #expect(throws: AppStoreError.self) { try response.records() }
        #expect(error?.code == .missingField)
        #expect(error?.path == "latest_receipt_info[0].product_id")
    }
}
