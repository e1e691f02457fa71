import LedgerCore
import LedgerCrypto
import LedgerJSON

extension LedgerEntry {
    /// A history entry: the contract's fields first (`seq`, `recordedAt`, `effectiveAt`, `kind`,
    /// `notificationType`, `subtype`, `notificationUUID`, `originalTransactionId`, `transactionId`,
    /// `productId`; a correction's grant names its product and, addressed to an owner, the subscription it makes),
    /// then the source, evidence and the whole normalised record. A void names the record it voids (`voidsSeq`);
    /// every operator's record (a void, correction, link or catalog version) says why and who (`reason`,
    /// `operator`); a voided record names its void (`voidedBySeq`, from ``historyJSON(voidedBy:)``).
    public var historyJSON: JSONValue { historyJSON(voidedBy: nil) }

    /// The history entries of `entries`, in their order, each voided one marked with the seq of its void
    /// (`voidedBySeq`; `voids` from ``Ledger/voids(about:knownAt:)``).
    public static func historyJSON(_ entries: [LedgerEntry], voids: [UInt64: UInt64]) -> JSONValue {
        .array(entries.map { $0.historyJSON(voidedBy: voids[$0.seq]) })
    }

    /// ``historyJSON``, marked as voided by record `void` when given.
    public func historyJSON(voidedBy void: UInt64?) -> JSONValue {
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
                    ?? grant.map { _ in EntitlementFold.grantSubscriptionId(idempotencyKey: record.idempotencyKey) }),
            "transactionId": .string(record.transaction?.transactionId),
            "productId": .string(record.transaction?.productId ?? record.renewal?.productId ?? grant),
            "source": .string(record.source.description),
            "environment": .string(record.environment.rawValue),
        ]
        if let voiding = record.void { object["voidsSeq"] = .integer(Int64(clamping: voiding.seq)) }
        if let note = record.operatorNote {
            object["reason"] = .string(note.reason)
            object["operator"] = .string(note.operatorName)
        }
        if let void { object["voidedBySeq"] = .integer(Int64(clamping: void)) }
        object["evidence"] = .string(record.evidence.map { Hex.encode($0) })
        object["record"] = record.json
        return .object(object)
    }
}

extension Ledger {
    /// The voids of the subject's records known at `knownAt` (nil: all): voided seq → the seq of its void (the
    /// first, should an input hold two). What ``LedgerEntry/historyJSON(_:voids:)`` marks, whatever `asOf` a
    /// history is cut at: a void known then takes its record out of the answers at every valid time.
    public func voids(about query: SubjectQuery, knownAt: Instant?) throws(ServiceError) -> [UInt64: UInt64] {
        Self.voids(in: try ownedEntries(for: query, knownAt: knownAt))
    }

    /// ``history(of:asOf:knownAt:)`` with ``voids(about:knownAt:)``, the subject's records read once for both.
    public func historyAndVoids(of query: SubjectQuery, asOf: Instant? = nil, knownAt: Instant? = nil)
        throws(ServiceError) -> (entries: [LedgerEntry], voids: [UInt64: UInt64])
    {
        let owned = try ownedEntries(for: query, knownAt: knownAt)
        let entries =
            owned
            .filter { entry in asOf.map { entry.effectiveAt <= $0 } ?? true }
            .sorted { ($0.effectiveAt, $0.seq) < ($1.effectiveAt, $1.seq) }
        return (entries, Self.voids(in: owned))
    }

    private static func voids(in entries: [LedgerEntry]) -> [UInt64: UInt64] {
        var voids: [UInt64: UInt64] = [:]
        for entry in entries {
            if let void = entry.record.void { voids[void.seq] = min(voids[void.seq] ?? .max, entry.seq) }
        }
        return voids
    }
}
