import LedgerAppStore
import LedgerCore
import LedgerJSON
import Testing

/// What a notification of one (type, subtype) carries, and what the ledger should make of it.
struct NotificationCase: Sendable, CustomTestStringConvertible {
    enum Body: Sendable { case subscription, transactionOnly, dataOnly, summary, token, appData }
    var type: String
    var subtype: String?
    var kind: NotificationClass.Kind
    var label: String
    var body: Body = .subscription

    var testDescription: String { type + (subtype.map { "/" + $0 } ?? "") }

    /// Every type and subtype of the reference's table (section 1.5).
    static let all: [NotificationCase] = [
        .init(type: "SUBSCRIBED", subtype: "INITIAL_BUY", kind: .entitlement, label: "Subscribed"),
        .init(type: "SUBSCRIBED", subtype: "RESUBSCRIBE", kind: .entitlement, label: "Resubscribed"),
        .init(type: "DID_RENEW", kind: .entitlement, label: "Renewed"),
        .init(type: "DID_RENEW", subtype: "BILLING_RECOVERY", kind: .entitlement, label: "Renewed (billing recovered)"),
        .init(type: "DID_CHANGE_RENEWAL_PREF", subtype: "UPGRADE", kind: .entitlement, label: "Upgraded (immediate)"),
        .init(type: "DID_CHANGE_RENEWAL_PREF", subtype: "DOWNGRADE", kind: .entitlement, label: "Downgrade scheduled"),
        .init(type: "DID_CHANGE_RENEWAL_PREF", kind: .entitlement, label: "Pending plan change cancelled"),
        .init(
            type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_ENABLED", kind: .entitlement,
            label: "Auto-renew turned on"),
        .init(
            type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", kind: .entitlement,
            label: "Auto-renew turned off"),
        .init(type: "OFFER_REDEEMED", subtype: "INITIAL_BUY", kind: .entitlement, label: "Offer redeemed (subscribed)"),
        .init(
            type: "OFFER_REDEEMED", subtype: "RESUBSCRIBE", kind: .entitlement, label: "Offer redeemed (resubscribed)"),
        .init(type: "OFFER_REDEEMED", subtype: "UPGRADE", kind: .entitlement, label: "Offer redeemed (upgraded)"),
        .init(
            type: "OFFER_REDEEMED", subtype: "DOWNGRADE", kind: .entitlement,
            label: "Offer redeemed (downgrade scheduled)"),
        .init(type: "OFFER_REDEEMED", kind: .informational, label: "Offer redeemed"),
        .init(type: "EXPIRED", subtype: "VOLUNTARY", kind: .entitlement, label: "Expired (cancelled by the user)"),
        .init(type: "EXPIRED", subtype: "BILLING_RETRY", kind: .entitlement, label: "Expired (billing retry ended)"),
        .init(
            type: "EXPIRED", subtype: "PRICE_INCREASE", kind: .entitlement, label: "Expired (price increase declined)"),
        .init(
            type: "EXPIRED", subtype: "PRODUCT_NOT_FOR_SALE", kind: .entitlement,
            label: "Expired (product not for sale)"),
        .init(type: "EXPIRED", kind: .entitlement, label: "Expired"),
        .init(
            type: "DID_FAIL_TO_RENEW", subtype: "GRACE_PERIOD", kind: .entitlement,
            label: "Renewal failed (grace period)"),
        .init(type: "DID_FAIL_TO_RENEW", kind: .entitlement, label: "Renewal failed (billing retry)"),
        .init(type: "GRACE_PERIOD_EXPIRED", kind: .entitlement, label: "Grace period expired"),
        .init(
            type: "PRICE_INCREASE", subtype: "PENDING", kind: .informational, label: "Price increase pending consent"),
        .init(type: "PRICE_INCREASE", subtype: "ACCEPTED", kind: .informational, label: "Price increase accepted"),
        .init(type: "REFUND", kind: .entitlement, label: "Refunded"),
        .init(type: "REFUND_DECLINED", kind: .informational, label: "Refund declined"),
        .init(type: "REFUND_REVERSED", kind: .entitlement, label: "Refund reversed"),
        .init(type: "REVOKE", kind: .entitlement, label: "Family Sharing revoked"),
        .init(type: "CONSUMPTION_REQUEST", kind: .informational, label: "Refund requested"),
        .init(type: "RENEWAL_EXTENDED", kind: .entitlement, label: "Renewal date extended"),
        .init(
            type: "RENEWAL_EXTENSION", subtype: "SUMMARY", kind: .informational, label: "Renewal extension finished",
            body: .summary),
        .init(type: "RENEWAL_EXTENSION", subtype: "FAILURE", kind: .informational, label: "Renewal extension failed"),
        .init(type: "TEST", kind: .informational, label: "Test notification", body: .dataOnly),
        .init(type: "ONE_TIME_CHARGE", kind: .entitlement, label: "One-time purchase", body: .transactionOnly),
        .init(
            type: "EXTERNAL_PURCHASE_TOKEN", subtype: "UNREPORTED", kind: .informational,
            label: "External purchase token unreported", body: .token),
        .init(type: "RESCIND_CONSENT", kind: .informational, label: "Consent rescinded", body: .appData),
        .init(type: "METADATA_UPDATE", kind: .informational, label: "Subscription metadata updated"),
        .init(type: "MIGRATION", kind: .informational, label: "Subscription migrated"),
        .init(type: "PRICE_CHANGE", kind: .informational, label: "Price changed"),
    ]

    /// The notification JSON and the verified payloads of its signed members.
    func build() -> (JSONValue, TransactionPayload?, RenewalInfoPayload?) {
        let members: [String: JSONValue?]
        var transaction: TransactionPayload? = Fixture.transactionPayload()
        var renewal: RenewalInfoPayload? = Fixture.renewalPayload()
        switch body {
        case .subscription:
            members = ["data": Fixture.data()]
        case .transactionOnly:
            members = ["data": Fixture.data(["signedRenewalInfo": nil, "status": nil])]
            transaction = Fixture.transactionPayload([
                "type": "Non-Renewing Subscription", "expiresDate": nil, "productId": "com.visla.gps.pass_30d",
            ])
            renewal = nil
        case .dataOnly, .summary, .token, .appData:
            transaction = nil
            renewal = nil
            switch body {
            case .summary:
                members = [
                    "summary": .object([
                        "environment": "Sandbox", "bundleId": "com.visla.gps", "productId": "com.visla.gps.annual_1",
                        "succeededCount": 10, "failedCount": 0,
                    ])
                ]
            case .token:
                members = [
                    "externalPurchaseToken": .object([
                        "externalPurchaseId": "SANDBOX_1", "bundleId": "com.visla.gps",
                        "tokenCreationDate": 1_759_000_000_000,
                    ])
                ]
            case .appData:
                members = [
                    "appData": .object([
                        "environment": "Sandbox", "bundleId": "com.visla.gps", "signedAppTransactionInfo": "eyJ.a.s",
                    ])
                ]
            default:
                members = [
                    "data": Fixture.data(["signedTransactionInfo": nil, "signedRenewalInfo": nil, "status": nil])
                ]
            }
        }
        return (Fixture.notification(type, subtype, members: members), transaction, renewal)
    }
}

@Suite struct MappingNotificationTests {
    @Test(arguments: NotificationCase.all)
    func everyReferenceTypeAndSubtypeDecodesAndMapsToOneRecord(_ c: NotificationCase) throws {
        let (json, transaction, renewal) = c.build()
        let payload = try NotificationPayload(json: json)
        #expect(payload.notificationType.isKnown)
        #expect(payload.subtype?.isKnown ?? true)
        let record = try LedgerRecord(
            notification: payload, transaction: transaction, renewal: renewal, evidence: [1, 2, 3])
        #expect(record.source == .notification)
        #expect(record.environment == .sandbox)
        #expect(record.idempotencyKey == "5c3a1e2b-9d4f-4e6a-8b7c-1d2e3f4a5b6c")
        #expect(record.notification?.type == c.type)
        #expect(record.notification?.subtype == c.subtype)
        #expect(record.evidence == [1, 2, 3])
        switch c.body {
        case .subscription, .transactionOnly:
            #expect(record.subject.originalTransactionId == Fixture.otid)
            #expect(record.subject.userId == 42)
            #expect(record.transaction?.transactionId == "2000000912349999")
            #expect((record.renewal != nil) == (c.body == .subscription))
        case .dataOnly, .summary, .token, .appData:
            #expect(record.subject == Subject())
            #expect(record.transaction == nil && record.renewal == nil)
        }
        let classification = NotificationClass(type: c.type, subtype: c.subtype)
        #expect(classification.kind == c.kind)
        #expect(classification.label == c.label)
    }

    @Test func theTableCoversEveryKnownTypeAndSubtype() {
        let types = Set(NotificationCase.all.map(\.type))
        let subtypes = Set(NotificationCase.all.compactMap(\.subtype))
        #expect(types == Set(NotificationType.allKnown.map(\.rawValue)))
        #expect(subtypes == Set(NotificationSubtype.allKnown.map(\.rawValue)))
    }

    @Test func recordsAnUnknownTypeAndSubtypeRaw() throws {
        let payload = try NotificationPayload(
            json: Fixture.notification("SUBSCRIPTION_PAUSED", "USER_REQUESTED", members: ["data": Fixture.data()]))
        let record = try LedgerRecord(
            notification: payload, transaction: Fixture.transactionPayload(), renewal: Fixture.renewalPayload(),
            evidence: nil)
        #expect(record.notification?.type == "SUBSCRIPTION_PAUSED")
        #expect(record.notification?.subtype == "USER_REQUESTED")
        #expect(record.subject.originalTransactionId == Fixture.otid)
        let classification = NotificationClass(type: "SUBSCRIPTION_PAUSED", subtype: "USER_REQUESTED")
        #expect(classification.kind == .unknown)
        #expect(classification.label == "Unknown notification SUBSCRIPTION_PAUSED (USER_REQUESTED)")
        #expect(!classification.isEntitlementBearing)
    }

    @Test func aKnownTypeWithAnUnknownSubtypeKeepsItsClass() {
        let classification = NotificationClass(type: .didRenew, subtype: NotificationSubtype(rawValue: "FAST_TRACK"))
        #expect(classification.kind == .entitlement)
        #expect(classification.label == "Renewed (FAST_TRACK)")
    }

    @Test func carriesTheNotificationFacts() throws {
        let payload = try NotificationPayload(
            json: Fixture.notification(
                "CONSUMPTION_REQUEST",
                members: ["data": Fixture.data(["consumptionRequestReason": "FULFILLMENT_ISSUE", "status": 1])]))
        let record = try LedgerRecord(
            notification: payload, transaction: Fixture.transactionPayload(), renewal: Fixture.renewalPayload(),
            evidence: nil)
        let facts = try #require(record.notification)
        #expect(facts.uuid == "5c3a1e2b-9d4f-4e6a-8b7c-1d2e3f4a5b6c")
        #expect(facts.signedDate == Instant(milliseconds: 1_759_302_520_000))
        #expect(facts.status == 1)
        #expect(facts.bundleId == "com.visla.gps")
        #expect(facts.appAppleId == 6_450_000_001)
        #expect(facts.bundleVersion == "637")
        #expect(facts.consumptionRequestReason == "FULFILLMENT_ISSUE")
    }

    @Test func theIdempotencyKeyIsTheCanonicalUUIDWhateverItsCase() throws {
        let data: [String: JSONValue?] = ["data": .object(["environment": "Sandbox", "bundleId": "com.visla.gps"])]
        let upper = try NotificationPayload(
            json: Fixture.notification("TEST", uuid: "ABCDEF01-2345-6789-ABCD-EF0123456789", members: data))
        let lower = try NotificationPayload(
            json: Fixture.notification("TEST", uuid: "abcdef01-2345-6789-abcd-ef0123456789", members: data))
        let a = try LedgerRecord(notification: upper, transaction: nil, renewal: nil, evidence: nil)
        let b = try LedgerRecord(notification: lower, transaction: nil, renewal: nil, evidence: nil)
        #expect(a.idempotencyKey == "abcdef01-2345-6789-abcd-ef0123456789")
        #expect(a == b)
    }
}
