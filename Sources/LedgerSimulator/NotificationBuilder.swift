import LedgerCore
import LedgerJSON

/// Writes the App Store's payloads for the simulator's model: transactions, renewal info and the
/// notification envelope, with Apple's field names, types and units (dates in milliseconds, prices in
/// milliunits).
struct NotificationBuilder: Sendable {
    let config: SimulationConfig
    private let environment: JSONValue

    init(config: SimulationConfig) {
        self.config = config
        self.environment = .string(config.environment.rawValue)
    }

    /// A `JWSTransactionDecodedPayload` of the transaction as signed at `signedDate`.
    func transaction(
        _ txn: ModelTransaction, of subscription: SubscriptionModel, storefront: Storefront, signedDate: Instant
    ) -> JSONObject {
        var object: JSONObject = [
            "transactionId": .string(txn.transactionId),
            "originalTransactionId": .string(subscription.originalTransactionId),
            "webOrderLineItemId": .string(txn.webOrderLineItemId),
            "bundleId": .string(config.bundleId),
            "productId": .string(txn.product.id),
            "subscriptionGroupIdentifier": .string(config.subscriptionGroupIdentifier),
            "purchaseDate": .integer(txn.purchase.milliseconds),
            "originalPurchaseDate": .integer(subscription.originalPurchase.milliseconds),
            "expiresDate": .integer(txn.expires.milliseconds),
            "quantity": 1,
            "type": "Auto-Renewable Subscription",
        ]
        if let token = subscription.accountToken { object["appAccountToken"] = .string(token) }
        object["inAppOwnershipType"] = .string(subscription.ownership)
        object["signedDate"] = .integer(signedDate.milliseconds)
        if let revocation = txn.revocation {
            if let reason = revocation.reason { object["revocationReason"] = .int(reason) }
            object["revocationDate"] = .integer(revocation.date.milliseconds)
        }
        if txn.isUpgraded { object["isUpgraded"] = true }
        object["environment"] = environment
        object["transactionReason"] = .string(txn.reason)
        object["storefront"] = .string(storefront.code)
        object["storefrontId"] = .string(storefront.id)
        object["price"] = .integer(txn.product.price.milliunits)
        object["currency"] = .string(txn.product.price.currency)
        if let revocation = txn.revocation {
            object["revocationType"] = .string(revocation.type)
            if let percentage = revocation.percentage { object["revocationPercentage"] = .int(percentage) }
        }
        return object
    }

    /// A `JWSRenewalInfoDecodedPayload` of the subscription's renewal preferences as signed at `signedDate`.
    func renewal(of subscription: SubscriptionModel, signedDate: Instant) -> JSONObject {
        let current = subscription.current
        var object: JSONObject = [
            "originalTransactionId": .string(subscription.originalTransactionId),
            "autoRenewProductId": .string(subscription.autoRenewProduct.id),
            "productId": .string(current.product.id),
            "autoRenewStatus": .int(subscription.autoRenew ? 1 : 0),
        ]
        if let intent = subscription.expirationIntent { object["expirationIntent"] = .int(intent) }
        object["isInBillingRetryPeriod"] = .bool(subscription.inBillingRetry)
        if let grace = subscription.gracePeriodExpires {
            object["gracePeriodExpiresDate"] = .integer(grace.milliseconds)
        }
        if let status = subscription.priceIncreaseStatus { object["priceIncreaseStatus"] = .int(status) }
        if let offer = subscription.offerIdentifier {
            object["offerType"] = 3
            object["offerIdentifier"] = .string(offer)
        }
        object["signedDate"] = .integer(signedDate.milliseconds)
        object["environment"] = environment
        object["recentSubscriptionStartDate"] = .integer(subscription.recentStart.milliseconds)
        object["renewalDate"] = .integer(current.expires.milliseconds)
        if subscription.autoRenew {
            object["currency"] = .string(subscription.autoRenewProduct.price.currency)
            object["renewalPrice"] = .integer(subscription.autoRenewProduct.price.milliunits)
        }
        if let token = subscription.accountToken { object["appAccountToken"] = .string(token) }
        return object
    }

    /// The notification envelope with its `data`; the signed fields are `null` placeholders when
    /// `hasTransaction`/`hasRenewal`.
    func envelope(
        type: String, subtype: String?, uuid: String, signedDate: Instant, status: Int32?,
        hasTransaction: Bool, hasRenewal: Bool, consumptionRequestReason: String? = nil
    ) -> JSONObject {
        var object: JSONObject = ["notificationType": .string(type)]
        if let subtype { object["subtype"] = .string(subtype) }
        object["notificationUUID"] = .string(uuid)
        var data: JSONObject = [:]
        if type != "TEST" || !config.isSandbox { data["appAppleId"] = .integer(config.appAppleId) }
        data["bundleId"] = .string(config.bundleId)
        if type != "TEST" { data["bundleVersion"] = .string(config.bundleVersion) }
        data["environment"] = environment
        if hasTransaction { data["signedTransactionInfo"] = .null }
        if hasRenewal { data["signedRenewalInfo"] = .null }
        if let status { data["status"] = .int(status) }
        if let consumptionRequestReason { data["consumptionRequestReason"] = .string(consumptionRequestReason) }
        object["data"] = .object(data)
        object["version"] = "2.0"
        object["signedDate"] = .integer(signedDate.milliseconds)
        return object
    }
}

/// An App Store storefront: ISO 3166-1 alpha-3 code and Apple's numeric id.
struct Storefront: Sendable, Hashable {
    var code: String
    var id: String

    /// Euro storefronts (the catalog is priced in EUR), with the weight of each among Visla's users.
    static let euro: [(storefront: Storefront, weight: Double)] = [
        (Storefront(code: "ITA", id: "143450"), 40), (Storefront(code: "DEU", id: "143443"), 15),
        (Storefront(code: "FRA", id: "143442"), 12), (Storefront(code: "ESP", id: "143454"), 10),
        (Storefront(code: "NLD", id: "143452"), 6), (Storefront(code: "AUT", id: "143445"), 5),
        (Storefront(code: "BEL", id: "143446"), 4), (Storefront(code: "PRT", id: "143453"), 3),
        (Storefront(code: "IRL", id: "143449"), 3), (Storefront(code: "FIN", id: "143447"), 2),
    ]
}
