import LedgerCore
import LedgerTesting

/// Random ledger records covering every optional field, Unicode, extreme instants and repeated strings
/// (which the encoding stores as back-references).
struct RandomRecords {
    var random: SeededRandom
    private var pool: [String] = ["com.visla.gps.monthly_3", "2000000912345678", "EUR", "Sandbox"]

    init(seed: UInt64) { random = SeededRandom(seed: seed) }

    mutating func chance(_ percent: Int = 50) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    mutating func string() -> String {
        if chance(30), let reused = pool.randomElement(using: &random) { return reused }
        let alphabet: [String] = ["a", "Z", "0", "-", "_", " ", "é", "ß", "日", "本", "🛰", "\u{0}", "\""]
        let length = Int.random(in: 0...(chance(5) ? 300 : 40), using: &random)
        let value = (0..<length).map { _ in alphabet.randomElement(using: &random)! }.joined()
        pool.append(value)
        return value
    }

    mutating func optionalString() -> String? { chance() ? string() : nil }

    mutating func instant() -> Instant {
        if chance(5) {
            return [Instant.distantPast, .distantFuture, Instant(milliseconds: 0)].randomElement(using: &random)!
        }
        return Instant(milliseconds: Int64.random(in: 1_500_000_000_000...2_000_000_000_000, using: &random))
    }

    mutating func optionalInstant() -> Instant? { chance() ? instant() : nil }
    mutating func int32() -> Int32? { chance() ? Int32.random(in: .min ... .max, using: &random) : nil }
    mutating func int64() -> Int64? { chance() ? Int64.random(in: .min ... .max, using: &random) : nil }
    mutating func bool() -> Bool? { chance() ? chance() : nil }

    mutating func record() -> LedgerRecord {
        let key = string()
        let subject = Subject(
            originalTransactionId: optionalString(),
            appAccountToken: chance() ? "0000002A-0000-0000-0000-000000000000" : optionalString(),
            userId: int64())
        var record = LedgerRecord(
            environment: LedgerEnvironment(rawValue: string()),
            source: RecordSource(rawValue: UInt8.random(in: 0...255, using: &random)),
            idempotencyKey: key, subject: subject)
        if chance() {
            record.notification = NotificationFacts(
                type: string(), subtype: optionalString(), uuid: chance() ? key : string(), signedDate: instant(),
                status: int32(), bundleId: optionalString(), appAppleId: int64(), bundleVersion: optionalString(),
                consumptionRequestReason: optionalString())
        }
        if chance() {
            let otid = chance() ? subject.originalTransactionId ?? string() : string()
            record.transaction = TransactionFacts(
                transactionId: chance() ? otid : string(), originalTransactionId: otid,
                webOrderLineItemId: optionalString(), productId: string(),
                subscriptionGroupIdentifier: optionalString(),
                purchaseDate: instant(), originalPurchaseDate: optionalInstant(), expiresDate: optionalInstant(),
                type: optionalString(), appAccountToken: chance() ? subject.appAccountToken : optionalString(),
                inAppOwnershipType: optionalString(), revocationDate: optionalInstant(), revocationReason: int32(),
                revocationType: optionalString(), revocationPercentage: int32(), isUpgraded: chance(), price: int64(),
                currency: optionalString(), offerType: int32(), offerIdentifier: optionalString(),
                offerDiscountType: optionalString(), transactionReason: optionalString(), storefront: optionalString(),
                quantity: int32(), signedDate: instant())
        }
        if chance() {
            record.renewal = RenewalFacts(
                originalTransactionId: string(), productId: optionalString(), autoRenewProductId: optionalString(),
                autoRenewStatus: bool(), isInBillingRetryPeriod: bool(), gracePeriodExpiresDate: optionalInstant(),
                expirationIntent: int32(), renewalDate: optionalInstant(),
                recentSubscriptionStartDate: optionalInstant(),
                priceIncreaseStatus: int32(), renewalPrice: int64(), currency: optionalString(), signedDate: instant())
        }
        if chance() {
            record.evidence = (0..<Int.random(in: 0...64, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
        }
        if chance(30) {
            let action: Correction.Action =
                chance() ? .grant(productId: string(), from: instant(), until: instant()) : .revoke(from: instant())
            record.correction = Correction(action: action, reason: string(), operatorName: string())
        }
        if chance(30) {
            var owner: Subject?
            if chance() {
                owner = Subject()
                owner?.appAccountToken = optionalString()
                owner?.userId = int64()
            }
            record.link = Link(reason: string(), operatorName: string(), previousOwner: owner)
        }
        if chance(15) {
            record.void = Voiding(
                seq: UInt64.random(in: 0...UInt64.max, using: &random), reason: string(), operatorName: string())
        }
        return record
    }
}
