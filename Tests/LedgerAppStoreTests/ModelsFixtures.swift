import LedgerAppStore
import LedgerJSON

/// Realistic App Store payloads for the Visla app, as Apple's verified JWS payloads decode, with
/// per-test changes. User 42's token follows the app's scheme (`%08x` + zeros).
enum Fixture {
    static let user42Token = "0000002a-0000-0000-0000-000000000000"
    static let otid = "2000000912345678"

    /// Parses JSON text written in a test.
    static func json(_ text: String) -> JSONValue {
        do { return try JSONValue.parse(text) } catch { fatalError("fixture JSON is invalid: \(error)") }
    }

    /// `base` with members replaced (a `nil` value removes the member).
    static func changing(_ base: JSONValue, _ changes: [String: JSONValue?]) -> JSONValue {
        guard case .object(var object) = base else { return base }
        for (key, value) in changes.sorted(by: { $0.key < $1.key }) {
            object[key] = value
        }
        return .object(object)
    }

    /// A renewal transaction carrying every documented field, the newer ones included.
    static let fullTransaction = json(
        """
        {"originalTransactionId":"2000000912345678","transactionId":"2000000912349999",
         "webOrderLineItemId":"2000000088887777","bundleId":"com.visla.gps","productId":"com.visla.gps.monthly_3",
         "subscriptionGroupIdentifier":"21752814","purchaseDate":1759302552000,"originalPurchaseDate":1756710552000,
         "expiresDate":1761980952000,"quantity":1,"type":"Auto-Renewable Subscription",
         "appAccountToken":"0000002A-0000-0000-0000-000000000000","inAppOwnershipType":"PURCHASED",
         "signedDate":1759302518835,"revocationReason":1,"revocationDate":1760000000000,"isUpgraded":false,
         "offerType":4,"offerIdentifier":"winback_2025","environment":"Sandbox","storefront":"ITA",
         "storefrontId":"143450","transactionReason":"RENEWAL","currency":"EUR","price":11700,
         "offerDiscountType":"PAY_AS_YOU_GO","appTransactionId":"704289572311805521","offerPeriod":"P1M",
         "revocationType":"REFUND_PRORATED","revocationPercentage":50000,
         "advancedCommerceInfo":{"requestReferenceId":"r-1"},"billingPlanType":"MONTHLY",
         "commitmentInfo":{"billingPeriodNumber":2,"commitmentExpiresDate":1790838552000,
           "commitmentPrice":140400,"totalBillingPeriods":12}}
        """)

    /// Renewal info carrying every documented field.
    static let fullRenewal = json(
        """
        {"expirationIntent":1,"originalTransactionId":"2000000912345678",
         "autoRenewProductId":"com.visla.gps.annual_3","productId":"com.visla.gps.monthly_3","autoRenewStatus":1,
         "isInBillingRetryPeriod":false,"priceIncreaseStatus":0,"gracePeriodExpiresDate":1762500000000,
         "offerType":2,"offerIdentifier":"promo_spring","signedDate":1759302518835,"environment":"Sandbox",
         "recentSubscriptionStartDate":1756710552000,"renewalDate":1761980952000,"currency":"EUR",
         "renewalPrice":84000,"offerDiscountType":"PAY_UP_FRONT","offerPeriod":"P1Y",
         "eligibleWinBackOfferIds":["wb_1","wb_2"],"appAccountToken":"0000002a-0000-0000-0000-000000000000",
         "appTransactionId":"704289572311805521","advancedCommerceInfo":{"period":"P1M"},
         "commitmentInfo":{"billingPeriodNumber":1,"totalBillingPeriods":12},"renewalBillingPlanType":"BILLED_UPFRONT"}
        """)

    /// A plain subscription transaction (no refund, no offer) with the given changes.
    static func transaction(_ changes: [String: JSONValue?] = [:]) -> JSONValue {
        let plain: [String: JSONValue?] = [
            "revocationReason": nil, "revocationDate": nil, "revocationType": nil, "revocationPercentage": nil,
            "offerType": nil, "offerIdentifier": nil, "offerDiscountType": nil, "offerPeriod": nil,
            "advancedCommerceInfo": nil, "billingPlanType": nil, "commitmentInfo": nil,
        ]
        return changing(changing(fullTransaction, plain), changes)
    }

    /// Plain renewal info (auto-renew on, no offer) with the given changes.
    static func renewal(_ changes: [String: JSONValue?] = [:]) -> JSONValue {
        let plain: [String: JSONValue?] = [
            "expirationIntent": nil, "gracePeriodExpiresDate": nil, "offerType": nil, "offerIdentifier": nil,
            "offerDiscountType": nil, "offerPeriod": nil, "advancedCommerceInfo": nil, "commitmentInfo": nil,
            "renewalBillingPlanType": nil, "autoRenewProductId": "com.visla.gps.monthly_3",
        ]
        return changing(changing(fullRenewal, plain), changes)
    }

    /// Sandbox `data` of a notification, with the given changes.
    static func data(_ changes: [String: JSONValue?] = [:]) -> JSONValue {
        let base = json(
            """
            {"appAppleId":6450000001,"bundleId":"com.visla.gps","bundleVersion":"637","environment":"Sandbox",
             "signedTransactionInfo":"eyJ.txn.sig","signedRenewalInfo":"eyJ.ren.sig","status":1}
            """)
        return changing(base, changes)
    }

    /// A notification payload with the given type, subtype and body members.
    static func notification(
        _ type: String, _ subtype: String? = nil, uuid: String = "5C3A1E2B-9D4F-4E6A-8B7C-1D2E3F4A5B6C",
        signedDate: Int64 = 1_759_302_520_000, members: [String: JSONValue?] = [:]
    ) -> JSONValue {
        var object: JSONObject = [
            "notificationType": .string(type), "notificationUUID": .string(uuid), "version": "2.0",
            "signedDate": .integer(signedDate),
        ]
        if let subtype { object["subtype"] = .string(subtype) }
        for (key, value) in members.sorted(by: { $0.key < $1.key }) { object[key] = value }
        return .object(object)
    }

    /// Decodes a payload a test built (fixtures are valid by construction).
    static func decoded<T>(_ decode: () throws -> T) -> T {
        do { return try decode() } catch { fatalError("fixture does not decode: \(error)") }
    }

    static func transactionPayload(_ changes: [String: JSONValue?] = [:]) -> TransactionPayload {
        decoded { try TransactionPayload(json: transaction(changes)) }
    }

    static func renewalPayload(_ changes: [String: JSONValue?] = [:]) -> RenewalInfoPayload {
        decoded { try RenewalInfoPayload(json: renewal(changes)) }
    }
}
