import LedgerCore
import LedgerCrypto
import LedgerJSON

extension LedgerRecord {
    /// The version of the record's JSON shape (``json``), 1 since the first; not the version of its binary
    /// encoding (``LedgerRecord/currentVersion``), which changes how records are stored, not what they say.
    public static let jsonVersion = 1

    /// The normalised record as JSON: every fact it holds, times in ISO 8601, absent facts omitted.
    public var json: JSONValue {
        var object: JSONObject = [
            "version": .int(LedgerRecord.jsonVersion),
            "environment": .string(environment.rawValue),
            "source": .string(source.description),
            "idempotencyKey": .string(idempotencyKey),
        ]
        var subjectObject = JSONObject()
        if let otid = subject.originalTransactionId { subjectObject["originalTransactionId"] = .string(otid) }
        if let token = subject.appAccountToken { subjectObject["appAccountToken"] = .string(token) }
        if let user = subject.userId { subjectObject["userId"] = .integer(user) }
        object["subject"] = .object(subjectObject)
        if let notification { object["notification"] = notification.json }
        if let transaction { object["transaction"] = transaction.json }
        if let renewal { object["renewal"] = renewal.json }
        if let evidence { object["evidence"] = .string(Hex.encode(evidence)) }
        if let correction { object["correction"] = correction.json }
        if let link {
            var linkObject: JSONObject = ["reason": .string(link.reason), "operator": .string(link.operatorName)]
            if let owner = link.previousOwner {
                var ownerObject = JSONObject()
                ownerObject.set("appAccountToken", owner.appAccountToken.map(JSONValue.string))
                ownerObject.set("userId", owner.userId.map(JSONValue.integer))
                linkObject["previousOwner"] = .object(ownerObject)
            }
            object["link"] = .object(linkObject)
        }
        if let void {
            object["void"] = .object([
                "seq": .integer(Int64(clamping: void.seq)), "reason": .string(void.reason),
                "operator": .string(void.operatorName),
            ])
        }
        if let catalog { object["catalog"] = catalog.json }
        return .object(object)
    }
}

extension NotificationFacts {
    /// The notification envelope as JSON.
    public var json: JSONValue {
        var object: JSONObject = [
            "notificationType": .string(type), "notificationUUID": .string(uuid),
            "signedDate": .string(signedDate.iso8601),
        ]
        object.set("subtype", subtype.map(JSONValue.string))
        object.set("status", status.map(JSONValue.int))
        object.set("bundleId", bundleId.map(JSONValue.string))
        object.set("appAppleId", appAppleId.map(JSONValue.integer))
        object.set("bundleVersion", bundleVersion.map(JSONValue.string))
        object.set("consumptionRequestReason", consumptionRequestReason.map(JSONValue.string))
        return .object(object)
    }
}

extension TransactionFacts {
    /// The transaction facts as JSON.
    public var json: JSONValue {
        var object: JSONObject = [
            "transactionId": .string(transactionId), "originalTransactionId": .string(originalTransactionId),
            "productId": .string(productId), "purchaseDate": .string(purchaseDate.iso8601),
        ]
        object.set("expiresDate", expiresDate.map { .string($0.iso8601) })
        object.set("webOrderLineItemId", webOrderLineItemId.map(JSONValue.string))
        object.set("subscriptionGroupIdentifier", subscriptionGroupIdentifier.map(JSONValue.string))
        object.set("originalPurchaseDate", originalPurchaseDate.map { .string($0.iso8601) })
        object.set("type", type.map(JSONValue.string))
        object.set("appAccountToken", appAccountToken.map(JSONValue.string))
        object.set("inAppOwnershipType", inAppOwnershipType.map(JSONValue.string))
        object.set("revocationDate", revocationDate.map { .string($0.iso8601) })
        object.set("revocationReason", revocationReason.map(JSONValue.int))
        object.set("revocationType", revocationType.map(JSONValue.string))
        object.set("revocationPercentage", revocationPercentage.map(JSONValue.int))
        if isUpgraded { object["isUpgraded"] = .bool(true) }
        object.set("price", price.map(JSONValue.integer))
        object.set("currency", currency.map(JSONValue.string))
        object.set("offerType", offerType.map(JSONValue.int))
        object.set("offerIdentifier", offerIdentifier.map(JSONValue.string))
        object.set("offerDiscountType", offerDiscountType.map(JSONValue.string))
        object.set("transactionReason", transactionReason.map(JSONValue.string))
        object.set("storefront", storefront.map(JSONValue.string))
        object.set("quantity", quantity.map(JSONValue.int))
        object["signedDate"] = .string(signedDate.iso8601)
        return .object(object)
    }
}

extension RenewalFacts {
    /// The renewal facts as JSON.
    public var json: JSONValue {
        var object: JSONObject = ["originalTransactionId": .string(originalTransactionId)]
        object.set("productId", productId.map(JSONValue.string))
        object.set("autoRenewProductId", autoRenewProductId.map(JSONValue.string))
        object.set("autoRenewStatus", autoRenewStatus.map(JSONValue.bool))
        object.set("isInBillingRetryPeriod", isInBillingRetryPeriod.map(JSONValue.bool))
        object.set("gracePeriodExpiresDate", gracePeriodExpiresDate.map { .string($0.iso8601) })
        object.set("expirationIntent", expirationIntent.map(JSONValue.int))
        object.set("renewalDate", renewalDate.map { .string($0.iso8601) })
        object.set("recentSubscriptionStartDate", recentSubscriptionStartDate.map { .string($0.iso8601) })
        object.set("priceIncreaseStatus", priceIncreaseStatus.map(JSONValue.int))
        object.set("renewalPrice", renewalPrice.map(JSONValue.integer))
        object.set("currency", currency.map(JSONValue.string))
        object["signedDate"] = .string(signedDate.iso8601)
        return .object(object)
    }
}

extension Correction {
    /// The correction as JSON.
    public var json: JSONValue {
        var object: JSONObject
        switch action {
        case .grant(let productId, let from, let until):
            object = [
                "action": "grant", "productId": .string(productId), "from": .string(from.iso8601),
                "until": .string(until.iso8601),
            ]
        case .revoke(let from):
            object = ["action": "revoke", "from": .string(from.iso8601)]
        }
        object["reason"] = .string(reason)
        object["operator"] = .string(operatorName)
        return .object(object)
    }
}

extension JSONObject {
    /// Sets a member only when the value is present.
    mutating func set(_ key: String, _ value: JSONValue?) {
        if let value { self[key] = value }
    }
}
