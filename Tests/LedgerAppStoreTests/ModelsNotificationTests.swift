import LedgerAppStore
import LedgerCore
import LedgerJSON
import Testing

@Suite struct ModelsNotificationTests {
    @Test func decodesEveryEnvelopeFieldAndKeepsTheRawPayload() throws {
        let json = Fixture.notification(
            "DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", members: ["data": Fixture.data()])
        let payload = try NotificationPayload(json: json)
        #expect(payload.notificationType == .didChangeRenewalPref)
        #expect(payload.subtype == .downgrade)
        #expect(payload.notificationUUID == "5c3a1e2b-9d4f-4e6a-8b7c-1d2e3f4a5b6c")
        #expect(payload.version == "2.0")
        #expect(payload.signedDate == Instant(milliseconds: 1_759_302_520_000))
        #expect(payload.raw == json)
        let data = try #require(payload.data)
        #expect(data.appAppleId == 6_450_000_001)
        #expect(data.bundleId == "com.visla.gps")
        #expect(data.bundleVersion == "637")
        #expect(data.environment == .sandbox)
        #expect(data.signedTransactionInfo == "eyJ.txn.sig")
        #expect(data.signedRenewalInfo == "eyJ.ren.sig")
        #expect(data.status == .active)
        #expect(data.consumptionRequestReason == nil)
        #expect(payload.summary == nil && payload.externalPurchaseToken == nil && payload.appData == nil)
        #expect(payload.environment == .sandbox)
        #expect(payload.bundleId == "com.visla.gps")
        #expect(payload.appAppleId == 6_450_000_001)
    }

    @Test func decodesAConsumptionRequestReason() throws {
        let json = Fixture.notification(
            "CONSUMPTION_REQUEST", members: ["data": Fixture.data(["consumptionRequestReason": "UNINTENDED_PURCHASE"])])
        let payload = try NotificationPayload(json: json)
        #expect(payload.data?.consumptionRequestReason == .unintendedPurchase)
    }

    @Test func decodesASummary() throws {
        let summary = Fixture.json(
            """
            {"environment":"Production","appAppleId":6450000001,"bundleId":"com.visla.gps",
             "productId":"com.visla.gps.annual_2","requestIdentifier":"ext-2025-10",
             "storefrontCountryCodes":["ITA","USA"],"succeededCount":1200,"failedCount":3}
            """)
        let payload = try NotificationPayload(
            json: Fixture.notification("RENEWAL_EXTENSION", "SUMMARY", members: ["summary": summary]))
        let decoded = try #require(payload.summary)
        #expect(decoded.environment == .production)
        #expect(decoded.appAppleId == 6_450_000_001)
        #expect(decoded.bundleId == "com.visla.gps")
        #expect(decoded.productId == "com.visla.gps.annual_2")
        #expect(decoded.requestIdentifier == "ext-2025-10")
        #expect(decoded.storefrontCountryCodes == ["ITA", "USA"])
        #expect(decoded.succeededCount == 1200)
        #expect(decoded.failedCount == 3)
        #expect(payload.environment == .production)
        #expect(payload.data == nil)
    }

    @Test(arguments: [("SANDBOX_abc-123", LedgerEnvironment.sandbox), ("abc-123", .production)])
    func derivesTheEnvironmentOfAnExternalPurchaseToken(id: String, environment: LedgerEnvironment) throws {
        let token: JSONValue = .object([
            "externalPurchaseId": .string(id), "tokenCreationDate": 1_759_000_000_000,
            "appAppleId": 6_450_000_001, "bundleId": "com.visla.gps",
        ])
        let payload = try NotificationPayload(
            json: Fixture.notification(
                "EXTERNAL_PURCHASE_TOKEN", "UNREPORTED", members: ["externalPurchaseToken": token]))
        let decoded = try #require(payload.externalPurchaseToken)
        #expect(decoded.externalPurchaseId == id)
        #expect(decoded.tokenCreationDate == Instant(milliseconds: 1_759_000_000_000))
        #expect(decoded.bundleId == "com.visla.gps")
        #expect(payload.environment == environment)
        #expect(payload.appAppleId == 6_450_000_001)
    }

    @Test func decodesAppDataOfARescindConsent() throws {
        let appData: JSONValue = .object([
            "appAppleId": 6_450_000_001, "bundleId": "com.visla.gps", "environment": "Sandbox",
            "signedAppTransactionInfo": "eyJ.app.sig",
        ])
        let payload = try NotificationPayload(
            json: Fixture.notification("RESCIND_CONSENT", members: ["appData": appData]))
        #expect(payload.appData?.signedAppTransactionInfo == "eyJ.app.sig")
        #expect(payload.appData?.environment == .sandbox)
        #expect(payload.environment == .sandbox)
        #expect(payload.bundleId == "com.visla.gps")
    }

    @Test func decodesApplesMockTestNotificationWithoutVersionOrAppAppleId() throws {
        let json = Fixture.json(
            """
            {"notificationType":"TEST","notificationUUID":"9ad56bd2-0bc6-42e0-8d24-c52a6b6a9a9b",
             "data":{"bundleId":"com.visla.gps","environment":"Sandbox"},"signedDate":1681314324000}
            """)
        let payload = try NotificationPayload(json: json)
        #expect(payload.notificationType == .test)
        #expect(payload.subtype == nil)
        #expect(payload.version == nil)
        #expect(payload.data?.appAppleId == nil)
        #expect(payload.data?.signedTransactionInfo == nil)
    }

    @Test func keepsAnUnknownTypeAndSubtypeRaw() throws {
        let payload = try NotificationPayload(
            json: Fixture.notification("SUBSCRIPTION_PAUSED", "USER_REQUESTED", members: ["data": Fixture.data()]))
        #expect(payload.notificationType.rawValue == "SUBSCRIPTION_PAUSED")
        #expect(!payload.notificationType.isKnown)
        #expect(payload.subtype?.rawValue == "USER_REQUESTED")
        #expect(payload.subtype?.isKnown == false)
    }

    @Test func truncatesXcodesFractionalMilliseconds() throws {
        let json = Fixture.changing(Fixture.notification("TEST"), ["signedDate": .double(1_697_679_936_049.7297)])
        let payload = try NotificationPayload(json: json)
        #expect(payload.signedDate == Instant(milliseconds: 1_697_679_936_049))
    }

    @Test func readsIntegersWrittenWithAFractionOrExponentAsFoundationDoes() throws {
        let data = Fixture.data([
            "appAppleId": try JSONValue.parse("6.450000001e9"), "status": try JSONValue.parse("1.0"),
        ])
        let payload = try NotificationPayload(json: Fixture.notification("DID_RENEW", members: ["data": data]))
        #expect(payload.data?.appAppleId == 6_450_000_001)
        #expect(payload.data?.status?.rawValue == 1)
        let summary: JSONValue = .object([
            "requestIdentifier": "req-1", "environment": "Sandbox", "appAppleId": try JSONValue.parse("6450000001.0"),
            "bundleId": "com.visla.gps", "productId": "com.visla.gps.monthly_3",
            "succeededCount": try JSONValue.parse("5.0"), "failedCount": try JSONValue.parse("0E3"),
        ])
        let decoded = try NotificationPayload(
            json: Fixture.notification("RENEWAL_EXTENSION", "SUMMARY", members: ["summary": summary]))
        #expect(decoded.summary?.appAppleId == 6_450_000_001)
        #expect(decoded.summary?.succeededCount == 5)
        #expect(decoded.summary?.failedCount == 0)
    }

    @Test(
        arguments: [
            ("appAppleId", "6450000001.5", AppStoreError.Code.wrongType),
            ("appAppleId", "1e19", .wrongType),
            ("status", "1.5", .wrongType),
            ("status", "4294967297", .invalidValue),
            ("bundleVersion", "637", .wrongType),
        ] as [(String, String, AppStoreError.Code)])
    func rejectsAFractionalOrOutOfRangeIntegerInsideData(key: String, text: String, code: AppStoreError.Code) throws {
        let data = Fixture.data([key: try JSONValue.parse(text)])
        let json = Fixture.notification("DID_RENEW", members: ["data": data])
        let error = #expect(throws: AppStoreError.self) { try NotificationPayload(json: json) }
        #expect(error?.code == code)
        #expect(error?.path == "data.\(key)")
    }

    @Test func knowsEveryDocumentedTypeAndSubtype() {
        #expect(NotificationType.allKnown.count == 23)
        #expect(NotificationSubtype.allKnown.count == 17)
        #expect(Set(NotificationType.allKnown.map(\.rawValue)).count == 23)
        #expect(NotificationType(rawValue: "DID_RENEW").isKnown)
        #expect(NotificationSubtype(rawValue: "BILLING_RECOVERY") == .billingRecovery)
    }

    @Test(
        arguments: [
            ("notificationType", JSONValue.integer(1), "notificationType", AppStoreError.Code.wrongType),
            ("notificationType", nil, "notificationType", .missingField),
            ("notificationUUID", "not-a-uuid", "notificationUUID", .invalidValue),
            ("notificationUUID", nil, "notificationUUID", .missingField),
            ("signedDate", "2025-10-01T00:00:00Z", "signedDate", .wrongType),
            ("signedDate", nil, "signedDate", .missingField),
            ("subtype", .bool(true), "subtype", .wrongType),
            ("version", .integer(2), "version", .wrongType),
            ("data", "eyJ", "data", .wrongType),
            ("summary", .array([]), "summary", .wrongType),
        ] as [(String, JSONValue?, String, AppStoreError.Code)])
    func rejectsAWrongOrMissingEnvelopeField(key: String, value: JSONValue?, path: String, code: AppStoreError.Code) {
        let json = Fixture.changing(Fixture.notification("DID_RENEW", members: ["data": Fixture.data()]), [key: value])
        let error = #expect(throws: AppStoreError.self) { try NotificationPayload(json: json) }
        #expect(error?.code == code)
        #expect(error?.path == path)
        #expect(error?.message.contains(path) == true)
    }

    @Test(arguments: [
        ("status", JSONValue.string("1"), "data.status"),
        ("appAppleId", "6450000001", "data.appAppleId"),
        ("signedTransactionInfo", .object([:]), "data.signedTransactionInfo"),
        ("environment", .integer(1), "data.environment"),
        ("consumptionRequestReason", .integer(0), "data.consumptionRequestReason"),
    ])
    func rejectsAWrongTypeInsideDataNamingItsPath(key: String, value: JSONValue, path: String) {
        let json = Fixture.notification("DID_RENEW", members: ["data": Fixture.data([key: value])])
        let error = #expect(throws: AppStoreError.self) { try NotificationPayload(json: json) }
        #expect(error?.code == .wrongType)
        #expect(error?.path == path)
        #expect(error?.description.contains("should be") == true)
    }

    @Test func treatsNullAsAbsent() throws {
        let json = Fixture.notification("TEST", members: ["data": Fixture.data(["status": .null]), "summary": .null])
        let payload = try NotificationPayload(json: json)
        #expect(payload.data?.status == nil)
        #expect(payload.summary == nil)
    }
}
