import LedgerAppStore
import LedgerCore
import LedgerJSON
import Testing

/// The reference's genuine sandbox sequence (section 1.6), replayed with Visla products: subscribe,
/// upgrade 12 s later, turn auto-renew off, schedule a downgrade, cancel it, turn auto-renew off, expire.
@Suite struct MappingSequenceTests {
    static let start: Int64 = 1_759_300_000_000
    static let semiannual = "com.visla.gps.semiannual_2"
    static let monthly = "com.visla.gps.monthly_3"

    struct Step {
        var type: String
        var subtype: String?
        var at: Int64
        var transaction: [String: JSONValue?]
        var renewal: [String: JSONValue?]
        var status: Int64 = 1
    }

    static let steps: [Step] = {
        let first: [String: JSONValue?] = [
            "transactionId": "2000000912340898", "productId": .string(semiannual), "purchaseDate": .integer(start),
            "expiresDate": .integer(start + 540_000), "transactionReason": "PURCHASE", "webOrderLineItemId": "1",
        ]
        let upgraded: [String: JSONValue?] = [
            "transactionId": "2000000912340928", "productId": .string(monthly),
            "purchaseDate": .integer(start + 12_000), "expiresDate": .integer(start + 192_000),
            "transactionReason": "PURCHASE", "webOrderLineItemId": "2",
        ]
        func renewal(_ next: String, _ on: Int64, _ extra: [String: JSONValue?] = [:]) -> [String: JSONValue?] {
            var r: [String: JSONValue?] = [
                "productId": .string(monthly), "autoRenewProductId": .string(next), "autoRenewStatus": .integer(on),
            ]
            r.merge(extra) { $1 }
            return r
        }
        return [
            Step(
                type: "SUBSCRIBED", subtype: "INITIAL_BUY", at: start + 1_000, transaction: first,
                renewal: ["productId": .string(semiannual), "autoRenewProductId": .string(semiannual)]),
            Step(
                type: "DID_CHANGE_RENEWAL_PREF", subtype: "UPGRADE", at: start + 13_000, transaction: upgraded,
                renewal: renewal(monthly, 1)),
            Step(
                type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", at: start + 40_000,
                transaction: upgraded, renewal: renewal(monthly, 0)),
            Step(
                type: "DID_CHANGE_RENEWAL_PREF", subtype: "DOWNGRADE", at: start + 60_000, transaction: upgraded,
                renewal: renewal(semiannual, 1)),
            Step(
                type: "DID_CHANGE_RENEWAL_PREF", at: start + 80_000, transaction: upgraded, renewal: renewal(monthly, 1)
            ),
            Step(
                type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", at: start + 100_000,
                transaction: upgraded, renewal: renewal(monthly, 0)),
            Step(
                type: "EXPIRED", subtype: "VOLUNTARY", at: start + 193_000, transaction: upgraded,
                renewal: renewal(monthly, 0, ["expirationIntent": 1]), status: 2),
        ]
    }()

    static func records() throws -> [LedgerRecord] {
        try steps.enumerated().map { i, step in
            var transaction = step.transaction
            transaction["signedDate"] = .integer(step.at)
            var renewal = step.renewal
            renewal["signedDate"] = .integer(step.at)
            let uuid = "00000000-0000-4000-8000-00000000000\(i)"
            let json = Fixture.notification(
                step.type, step.subtype, uuid: uuid, signedDate: step.at,
                members: ["data": Fixture.data(["status": .integer(step.status)])])
            return try LedgerRecord(
                notification: NotificationPayload(json: json),
                transaction: Fixture.transactionPayload(transaction), renewal: Fixture.renewalPayload(renewal),
                evidence: nil)
        }
    }

    @Test func everyStepIsOneRecordAboutTheSameUserAndSubscription() throws {
        let records = try Self.records()
        #expect(records.count == 7)
        #expect(Set(records.map(\.idempotencyKey)).count == 7)
        #expect(records.allSatisfy { $0.subject.originalTransactionId == Fixture.otid && $0.subject.userId == 42 })
        #expect(
            records.allSatisfy {
                NotificationClass(type: $0.notification!.type, subtype: $0.notification!.subtype).isEntitlementBearing
            })
    }

    @Test func theUpgradeIsANewTransactionEffectiveImmediately() throws {
        let records = try Self.records()
        let before = try #require(records[0].transaction)
        let after = try #require(records[1].transaction)
        #expect(after.transactionId != before.transactionId)
        #expect(after.originalTransactionId == before.originalTransactionId)
        #expect(after.productId == Self.monthly)
        #expect(after.purchaseDate == Instant(milliseconds: Self.start + 12_000))
        #expect(after.purchaseDate < before.expiresDate!)
        #expect(NotificationClass(type: "DID_CHANGE_RENEWAL_PREF", subtype: "UPGRADE").label == "Upgraded (immediate)")
    }

    @Test func theDowngradeOnlyChangesTheNextProductUntilItIsCancelled() throws {
        let records = try Self.records()
        #expect(records[2].renewal?.autoRenewStatus == false)
        let downgrade = try #require(records[3].renewal)
        #expect(records[3].transaction?.transactionId == records[1].transaction?.transactionId)
        #expect(records[3].transaction?.productId == Self.monthly)
        #expect(downgrade.productId == Self.monthly)
        #expect(downgrade.autoRenewProductId == Self.semiannual)
        #expect(downgrade.autoRenewStatus == true)
        let cancelled = try #require(records[4].renewal)
        #expect(cancelled.autoRenewProductId == cancelled.productId)
        #expect(records[4].notification?.subtype == nil)
    }

    @Test func theSubscriptionEndsExpiredByTheUsersChoice() throws {
        let last = try #require(try Self.records().last)
        #expect(last.notification?.status == 2)
        #expect(last.renewal?.expirationIntent == 1)
        #expect(last.renewal?.autoRenewStatus == false)
        #expect(NotificationClass(type: "EXPIRED", subtype: "VOLUNTARY").label == "Expired (cancelled by the user)")
    }

    @Test func mappingTheSameNotificationTwiceGivesTheSameRecord() throws {
        #expect(try Self.records() == Self.records())
    }
}
