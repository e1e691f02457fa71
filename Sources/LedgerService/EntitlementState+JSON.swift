import LedgerCore
import LedgerJSON

extension EntitlementState {
    /// The `ledger state` / entitlement endpoint JSON of the contract.
    public var json: JSONValue {
        .object([
            "userId": .integer(userId),
            "appAccountToken": .string(appAccountToken),
            "at": .string(at.iso8601),
            "knownAt": .string(knownAt?.iso8601),
            "entitled": .bool(entitled),
            "deviceLimit": .int(deviceLimit),
            "status": .string(status.rawValue),
            "subscriptions": .array(subscriptions.map(\.json)),
        ])
    }
}

extension SubscriptionState {
    /// One subscription of the contract's state JSON.
    public var json: JSONValue {
        .object([
            "originalTransactionId": .string(originalTransactionId),
            "productId": .string(productId),
            "productKnown": .bool(productKnown),
            "devices": .int(devices),
            "period": .string(period),
            "status": .string(status.rawValue),
            "since": .string(since?.iso8601),
            "expiresAt": .string(expiresAt?.iso8601),
            "gracePeriodExpiresAt": .string(gracePeriodExpiresAt?.iso8601),
            "autoRenew": .bool(autoRenew),
            "pendingProductId": .string(pendingProductId),
            "lastSeq": .integer(Int64(clamping: lastSeq)),
        ])
    }
}
