import LedgerCore
import LedgerJSON

/// Turns a notification-sourced ``LedgerRecord`` back into what Apple would POST: the signed
/// `responseBodyV2DecodedPayload` with its signed transaction and renewal info, as a webhook body.
///
/// The inverse of the App Store mapping, so lifecycles written as records can be delivered end to end
/// through verification and mapping.
public struct AppleNotificationEncoder: Sendable {
    /// The PKI that signs.
    public let pki: TestPKI

    /// Creates an encoder signing with `pki`.
    public init(pki: TestPKI = .shared) { self.pki = pki }

    /// The webhook body for a record; nil for records Apple does not send (operator records).
    public func body(for record: LedgerRecord) throws -> [UInt8]? {
        guard let notification = record.notification else { return nil }
        var data: JSONObject = [
            "bundleId": .string(notification.bundleId ?? TestPKI.bundleId), "bundleVersion": "637",
            "environment": .string(record.environment.rawValue),
            "appAppleId": .integer(notification.appAppleId ?? TestPKI.appAppleId),
        ]
        if let transaction = record.transaction {
            data["signedTransactionInfo"] = .string(try pki.sign(Self.json(transaction, record.environment)))
        }
        if let renewal = record.renewal {
            data["signedRenewalInfo"] = .string(try pki.sign(Self.json(renewal, record.environment)))
        }
        if let status = notification.status { data["status"] = .integer(Int64(status)) }
        var payload: JSONObject = ["notificationType": .string(notification.type)]
        if let subtype = notification.subtype { payload["subtype"] = .string(subtype) }
        payload["notificationUUID"] = .string(notification.uuid)
        payload["data"] = .object(data)
        payload["version"] = "2.0"
        payload["signedDate"] = .integer(notification.signedDate.milliseconds)
        return TestPKI.body(try pki.sign(.object(payload)))
    }

    /// A `JWSTransactionDecodedPayload` with every fact of `transaction`.
    public static func json(_ transaction: TransactionFacts, _ environment: LedgerEnvironment) -> JSONValue {
        var object: JSONObject = [
            "transactionId": .string(transaction.transactionId),
            "originalTransactionId": .string(transaction.originalTransactionId),
            "bundleId": .string(TestPKI.bundleId), "productId": .string(transaction.productId),
            "purchaseDate": .integer(transaction.purchaseDate.milliseconds),
            "environment": .string(environment.rawValue), "signedDate": .integer(transaction.signedDate.milliseconds),
        ]
        func set(_ key: String, _ value: JSONValue?) { if let value { object[key] = value } }
        set("webOrderLineItemId", transaction.webOrderLineItemId.map(JSONValue.string))
        set("subscriptionGroupIdentifier", transaction.subscriptionGroupIdentifier.map(JSONValue.string))
        set("originalPurchaseDate", transaction.originalPurchaseDate.map { .integer($0.milliseconds) })
        set("expiresDate", transaction.expiresDate.map { .integer($0.milliseconds) })
        set("type", transaction.type.map(JSONValue.string))
        set("appAccountToken", transaction.appAccountToken.map(JSONValue.string))
        set("inAppOwnershipType", transaction.inAppOwnershipType.map(JSONValue.string))
        set("revocationDate", transaction.revocationDate.map { .integer($0.milliseconds) })
        set("revocationReason", transaction.revocationReason.map { .integer(Int64($0)) })
        set("revocationType", transaction.revocationType.map(JSONValue.string))
        set("revocationPercentage", transaction.revocationPercentage.map { .integer(Int64($0)) })
        if transaction.isUpgraded { object["isUpgraded"] = true }
        set("price", transaction.price.map(JSONValue.integer))
        set("currency", transaction.currency.map(JSONValue.string))
        set("offerType", transaction.offerType.map { .integer(Int64($0)) })
        set("offerIdentifier", transaction.offerIdentifier.map(JSONValue.string))
        set("offerDiscountType", transaction.offerDiscountType.map(JSONValue.string))
        set("transactionReason", transaction.transactionReason.map(JSONValue.string))
        set("storefront", transaction.storefront.map(JSONValue.string))
        set("quantity", transaction.quantity.map { .integer(Int64($0)) })
        return .object(object)
    }

    /// A `JWSRenewalInfoDecodedPayload` with every fact of `renewal`.
    public static func json(_ renewal: RenewalFacts, _ environment: LedgerEnvironment) -> JSONValue {
        var object: JSONObject = [
            "originalTransactionId": .string(renewal.originalTransactionId),
            "environment": .string(environment.rawValue), "signedDate": .integer(renewal.signedDate.milliseconds),
        ]
        func set(_ key: String, _ value: JSONValue?) { if let value { object[key] = value } }
        set("productId", renewal.productId.map(JSONValue.string))
        set("autoRenewProductId", renewal.autoRenewProductId.map(JSONValue.string))
        set("autoRenewStatus", renewal.autoRenewStatus.map { .integer($0 ? 1 : 0) })
        set("isInBillingRetryPeriod", renewal.isInBillingRetryPeriod.map(JSONValue.bool))
        set("gracePeriodExpiresDate", renewal.gracePeriodExpiresDate.map { .integer($0.milliseconds) })
        set("expirationIntent", renewal.expirationIntent.map { .integer(Int64($0)) })
        set("renewalDate", renewal.renewalDate.map { .integer($0.milliseconds) })
        set("recentSubscriptionStartDate", renewal.recentSubscriptionStartDate.map { .integer($0.milliseconds) })
        set("priceIncreaseStatus", renewal.priceIncreaseStatus.map { .integer(Int64($0)) })
        set("renewalPrice", renewal.renewalPrice.map(JSONValue.integer))
        set("currency", renewal.currency.map(JSONValue.string))
        return .object(object)
    }
}
