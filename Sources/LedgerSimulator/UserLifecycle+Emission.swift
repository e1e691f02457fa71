import LedgerCore
import LedgerJSON

extension UserLifecycle {
    /// Emits a notification about the subscription as it is now, carrying the transaction at `index`
    /// (default: the current one) and the renewal info, then schedules its deliveries.
    mutating func emit(
        _ type: String, _ subtype: String? = nil, transaction index: Int? = nil, status: Int32? = nil,
        signedDate: Instant? = nil, consumptionRequestReason: String? = nil
    ) {
        let sub = subscription
        let signed = signedDate ?? now
        let txn = sub.transactions[index ?? sub.transactions.count - 1]
        let envelope = builder.envelope(
            type: type, subtype: subtype, uuid: rng.uuid(), signedDate: signed, status: status ?? currentStatus,
            hasTransaction: true, hasRenewal: true, consumptionRequestReason: consumptionRequestReason)
        let notification = SimulatedNotification(
            uuid: envelope["notificationUUID"]!.string!, type: type, subtype: subtype, signedDate: signed,
            userId: timeline.userId, originalTransactionId: sub.originalTransactionId,
            status: envelope["data"]?["status"]?.int64.map { Int32($0) }, envelope: envelope,
            transaction: builder.transaction(txn, of: sub, storefront: storefront, signedDate: signed),
            renewal: builder.renewal(of: sub, signedDate: signed))
        timeline.notifications.append(notification)
        scheduleDeliveries(of: timeline.notifications.count - 1, signed: signed)
    }

    /// Emits a notification carrying the transaction at `index` and nothing else new.
    mutating func emitAbout(_ index: Int, type: String) {
        emit(type, transaction: index)
    }

    /// Apple-style delivery: usually within seconds, sometimes minutes to hours late, rarely days; some
    /// notifications are delivered again (Apple retries when it saw no 200 in time), byte for byte the same.
    mutating func scheduleDeliveries(of index: Int, signed: Instant) {
        let behaviour = config.behaviour
        let delay: Int64
        let draw = rng.unit()
        if draw < behaviour.veryLate {
            delay = clock.scaled(rng.int(in: 6 * 3_600_000...96 * 3_600_000), floor: 20)
        } else if draw < behaviour.veryLate + behaviour.late {
            delay = clock.scaled(rng.int(in: 60_000...6 * 3_600_000), floor: 20)
        } else {
            delay = clock.scaled(rng.int(in: 200...5_000), floor: 20)
        }
        let first = outages.delivery(firstAttempt: signed.adding(milliseconds: delay))
        timeline.deliveries.append((index, first, 1))
        guard rng.chance(behaviour.duplicate) else { return }
        let second = first.adding(milliseconds: clock.scaled(rng.int(in: 3_600_000...3_900_000), floor: 20))
        timeline.deliveries.append((index, second, 2))
        guard rng.chance(0.5) else { return }
        let third = second.adding(milliseconds: clock.scaled(rng.int(in: 12 * 3_600_000...13 * 3_600_000), floor: 20))
        timeline.deliveries.append((index, third, 3))
    }
}
