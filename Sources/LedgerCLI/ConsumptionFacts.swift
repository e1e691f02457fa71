import LedgerAppStoreAPI
import LedgerCore
import LedgerService

/// The ConsumptionRequest `serve --consumption auto` sends, from the ledger's own facts about the transaction
/// Apple asks about (Apple's ConsumptionRequest documentation, App Store Server API 1.19):
/// - `customerConsented`: true (nothing is sent without `--consumption-consent yes`);
/// - `deliveryStatus`: `DELIVERED`: the transaction is in the ledger, verified, so the app granted what it sold
///   (the ledger knows of no delivery failure);
/// - `sampleContentProvided`: whether the subscription began with a free trial: a transaction of it, purchased
///   no later than this one, with an introductory offer (`offerType` 1) that was free (`offerDiscountType`
///   FREE_TRIAL, or a price of 0);
/// - `consumptionPercentage`: never for an auto-renewable subscription (Apple computes it from the elapsed
///   time); for another product neither, as the ledger has no measure of its use;
/// - `refundPreference`: left out: the ledger has no preference of its own to state.
enum ConsumptionFacts {
    /// The request for `transaction`, from the ledger's records of its subscription.
    static func request(for transaction: TransactionFacts, ledger: Ledger) throws(CLIError) -> ConsumptionRequest {
        let entries: [LedgerEntry]
        do {
            entries = try ledger.entries(for: .originalTransaction(transaction.originalTransactionId))
        } catch {
            throw Commands.failure(error)
        }
        let trial = entries.contains { entry in
            guard let earlier = entry.record.transaction,
                earlier.originalTransactionId == transaction.originalTransactionId,
                earlier.purchaseDate <= transaction.purchaseDate, earlier.offerType == 1
            else { return false }
            return earlier.offerDiscountType == "FREE_TRIAL" || earlier.price == 0
        }
        return ConsumptionRequest(customerConsented: true, deliveryStatus: "DELIVERED", sampleContentProvided: trial)
    }

    /// Whether the transaction is an auto-renewable subscription's (Apple's `type`; an absent type counts as one:
    /// the ledger holds subscriptions).
    static func isAutoRenewable(_ transaction: TransactionFacts) -> Bool {
        transaction.type == nil || transaction.type == "Auto-Renewable Subscription"
    }
}
