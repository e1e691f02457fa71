import LedgerCore
import LedgerCrypto
import LedgerJSON

extension LedgerEntry {
    /// A history entry: the contract's fields first (`seq`, `recordedAt`, `effectiveAt`, `kind`,
    /// `notificationType`, `subtype`, `notificationUUID`, `originalTransactionId`, `transactionId`,
    /// `productId`; a correction's grant names its product and, addressed to an owner, the subscription it makes),
    /// then the source, evidence and the whole normalised record.
    public var historyJSON: JSONValue {
        let record = self.record
        // An operator's grant names its product, and the subscription it makes when it is addressed to an owner
        // (as `state` names it).
        var grant: String?
        if case .grant(let product, _, _) = record.correction?.action { grant = product }
        var object: JSONObject = [
            "seq": .integer(Int64(clamping: seq)),
            "recordedAt": .string(recordedAt.iso8601),
            "effectiveAt": .string(effectiveAt.iso8601),
            "kind": .string(kind),
            "notificationType": .string(record.notification?.type),
            "subtype": .string(record.notification?.subtype),
            "notificationUUID": .string(record.notification?.uuid),
            "originalTransactionId": .string(
                record.subject.originalTransactionId ?? record.transaction?.originalTransactionId
                    ?? grant.map { _ in EntitlementFold.grantPrefix + record.idempotencyKey }),
            "transactionId": .string(record.transaction?.transactionId),
            "productId": .string(record.transaction?.productId ?? record.renewal?.productId ?? grant),
            "source": .string(record.source.description),
            "environment": .string(record.environment.rawValue),
        ]
        object["evidence"] = .string(record.evidence.map { Hex.encode($0) })
        object["record"] = record.json
        return .object(object)
    }
}
