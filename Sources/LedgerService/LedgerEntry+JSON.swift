import LedgerCore
import LedgerCrypto
import LedgerJSON

extension LedgerEntry {
    /// A history entry: the contract's fields first (`seq`, `recordedAt`, `effectiveAt`, `kind`,
    /// `notificationType`, `subtype`, `notificationUUID`, `originalTransactionId`, `transactionId`,
    /// `productId`), then the source, evidence and the whole normalised record.
    public var historyJSON: JSONValue {
        let record = self.record
        var object: JSONObject = [
            "seq": .integer(Int64(clamping: seq)),
            "recordedAt": .string(recordedAt.iso8601),
            "effectiveAt": .string(effectiveAt.iso8601),
            "kind": .string(kind),
            "notificationType": .string(record.notification?.type),
            "subtype": .string(record.notification?.subtype),
            "notificationUUID": .string(record.notification?.uuid),
            "originalTransactionId": .string(
                record.subject.originalTransactionId ?? record.transaction?.originalTransactionId),
            "transactionId": .string(record.transaction?.transactionId),
            "productId": .string(record.transaction?.productId ?? record.renewal?.productId),
            "source": .string(record.source.description),
            "environment": .string(record.environment.rawValue),
        ]
        object["evidence"] = .string(record.evidence.map { Hex.encode($0) })
        object["record"] = record.json
        return .object(object)
    }
}
