import LedgerCore
import LedgerService

/// Records for the report tests: one transaction version as a notification, with its price, currency,
/// storefront and offer.
enum ReportFixtures {
    static func at(_ text: String) -> Instant { Instant(parsing: text)! }

    static func record(
        user: Int64, otid: String, txn: String, product: String, type: String, subtype: String? = nil,
        purchase: String, expires: String, price: Int64, currency: String = "EUR", storefront: String? = nil,
        reason: String = "PURCHASE", offerType: Int32? = nil, offerDiscount: String? = nil, revoked: String? = nil,
        signed: String? = nil
    ) -> LedgerRecord {
        let signedDate = at(signed ?? purchase)
        let token = AccountToken.token(forUser: user)
        let transaction = TransactionFacts(
            transactionId: txn, originalTransactionId: otid, productId: product, purchaseDate: at(purchase),
            expiresDate: at(expires), appAccountToken: token, inAppOwnershipType: "PURCHASED",
            revocationDate: revoked.map(at), revocationReason: revoked == nil ? nil : 0, price: price,
            currency: currency, offerType: offerType, offerDiscountType: offerDiscount, transactionReason: reason,
            storefront: storefront, signedDate: signedDate)
        return LedgerRecord(
            environment: .sandbox, source: .notification, idempotencyKey: "\(type)-\(txn)-\(signedDate.milliseconds)",
            subject: Subject(originalTransactionId: otid, appAccountToken: token),
            notification: NotificationFacts(
                type: type, subtype: subtype, uuid: "\(type)-\(txn)-\(signedDate.milliseconds)",
                signedDate: signedDate),
            transaction: transaction)
    }

    /// A monthly_1 subscription (4.90) of `user` bought at `first` and renewed every month `renewals` times
    /// (each a day-exact calendar month).
    static func monthly(user: Int64, otid: String, first: (year: Int, month: Int), charges: Int) -> [LedgerRecord] {
        func date(_ index: Int) -> String {
            let months = first.year * 12 + first.month - 1 + index
            let month = months % 12 + 1
            return "\(months / 12)-\(month < 10 ? "0" : "")\(month)-01T00:00:00Z"
        }
        return (0..<charges).map { index in
            record(
                user: user, otid: otid, txn: "\(otid)-\(index)", product: "com.visla.gps.monthly_1",
                type: index == 0 ? "SUBSCRIBED" : "DID_RENEW", subtype: index == 0 ? "INITIAL_BUY" : nil,
                purchase: date(index), expires: date(index + 1), price: 4900, storefront: "ITA",
                reason: index == 0 ? "PURCHASE" : "RENEWAL")
        }
    }
}
