import LedgerCore
import LedgerJSON
import Testing

@testable import LedgerSimulator

@Test func deviceLimitsStayWithinZeroToTwenty() {
    let truth = Fixtures.population.truth
    for samples in truth.users.map(\.samples) + truth.orphans.map(\.samples) {
        #expect(samples.allSatisfy { (0...20).contains($0.deviceLimit) })
    }
    #expect(truth.users.contains { $0.samples.contains { $0.deviceLimit >= 4 } })
}

@Test func aUserWithoutPurchaseHasNothing() {
    let bystanders = Fixtures.population.truth.users.filter { $0.profile == .bystander }
    #expect(!bystanders.isEmpty)
    for user in bystanders {
        #expect(user.originalTransactionIds.isEmpty)
        #expect(!user.samples.isEmpty)
        #expect(user.samples.allSatisfy { $0.deviceLimit == 0 && $0.status == EntitlementStatus.none })
    }
}

@Test func samplesAreOrderedInsideTheSimulatedPeriod() {
    let truth = Fixtures.population.truth
    for user in truth.users {
        #expect(user.samples.allSatisfy { $0.at >= truth.start && $0.at < truth.end })
        #expect(zip(user.samples, user.samples.dropFirst()).allSatisfy { $0.at < $1.at })
    }
}

@Test func theTruthStatesActiveGraceRetryExpiredRefundedAndRevokedStates() {
    let statuses = Set(Fixtures.population.truth.users.flatMap { $0.samples.compactMap(\.status) })
    #expect(statuses == Set(EntitlementStatus.allCases))
    let grace = Fixtures.population.truth.users.flatMap(\.samples).filter { $0.status == .gracePeriod }
    #expect(grace.allSatisfy { $0.deviceLimit > 0 })
    let lapsed = Fixtures.population.truth.users.flatMap(\.samples).filter {
        [.billingRetry, .expired, .refunded, .revoked].contains($0.status)
    }
    #expect(lapsed.allSatisfy { $0.deviceLimit == 0 })
}

@Test func theTruthDocumentReadsBack() throws {
    let json = Fixtures.population.truth.json
    let parsed = try JSONValue.parse(json.serializedBytes(.pretty))
    let truth = try Truth(json: parsed)
    #expect(truth == Fixtures.population.truth)
    #expect(truth.user(5)?.userId == 5)
    #expect(parsed["semantics"]?.string?.contains("expiresDate is exclusive") == true)
}

// MARK: - The truth's semantics on hand-made subscriptions

private let monthly3 = Catalog.visla.product(id: "com.visla.gps.monthly_3")!
private let monthly5 = Catalog.visla.product(id: "com.visla.gps.monthly_5")!
private let monthly1 = Catalog.visla.product(id: "com.visla.gps.monthly_1")!
private let day: Int64 = 86_400_000

private func at(_ days: Double) -> Instant { Instant(milliseconds: Int64(days * Double(day))) }

private func transaction(_ id: Int, _ product: Product, from: Double, to: Double, reason: String = "RENEWAL")
    -> ModelTransaction
{
    ModelTransaction(
        transactionId: "\(id)", webOrderLineItemId: "\(id)", product: product, purchase: at(from), expires: at(to),
        reason: reason)
}

private func subscription(_ transactions: [ModelTransaction], lapses: [Lapse] = []) -> SubscriptionModel {
    var model = SubscriptionModel(
        originalTransactionId: "1", ownership: "PURCHASED", accountToken: nil, first: transactions[0])
    model.transactions = transactions
    model.lapses = lapses
    return model
}

private func sample(_ model: SubscriptionModel, _ days: Double) -> TruthSample? {
    TruthSampler.sample(model, at: at(days))
}

@Test func expiresDateIsExclusiveAndPurchaseDateInclusive() {
    let model = subscription([transaction(1, monthly3, from: 10, to: 40, reason: "PURCHASE")])
    #expect(sample(model, 9.99)?.status == EntitlementStatus.none)
    #expect(sample(model, 10)?.deviceLimit == 3)
    #expect(TruthSampler.sample(model, at: at(40).adding(milliseconds: -1))?.deviceLimit == 3)
    #expect(sample(model, 40) == TruthSample(at: at(40), deviceLimit: 0, status: .expired))
}

@Test func anUpgradeCountsFromItsPurchaseADowngradeFromTheNextRenewal() {
    var old = transaction(1, monthly3, from: 0, to: 30, reason: "PURCHASE")
    old.isUpgraded = true
    let upgraded = transaction(2, monthly5, from: 12, to: 42, reason: "PURCHASE")
    let downgraded = transaction(3, monthly1, from: 42, to: 72)
    let model = subscription([old, upgraded, downgraded])
    #expect(sample(model, 11)?.deviceLimit == 3)
    #expect(sample(model, 12)?.deviceLimit == 5)
    #expect(sample(model, 35)?.deviceLimit == 5)
    #expect(sample(model, 43)?.deviceLimit == 1)
}

@Test func aRefundCountsFromItsRevocationDate() {
    var refunded = transaction(1, monthly3, from: 0, to: 30, reason: "PURCHASE")
    refunded.revocation = .init(date: at(5), reason: 0, type: "REFUND_FULL", percentage: nil)
    let model = subscription([refunded])
    #expect(sample(model, 4)?.deviceLimit == 3)
    #expect(sample(model, 6) == TruthSample(at: at(6), deviceLimit: 0, status: .refunded))
    // After the refunded period's end, "refunded" and "expired" are both defensible: no status stated.
    #expect(sample(model, 31) == TruthSample(at: at(31), deviceLimit: 0, status: nil))
}

@Test func aReversedRefundIsNotSampledWhileItWasInForce() {
    var reversed = transaction(1, monthly3, from: 0, to: 30, reason: "PURCHASE")
    reversed.reversedRefund = (at(5), at(9))
    let model = subscription([reversed])
    #expect(sample(model, 6) == nil)
    #expect(sample(model, 10)?.deviceLimit == 3)
}

@Test func graceEntitlesAndBillingRetryDoesNot() {
    let lapsed = transaction(1, monthly3, from: 0, to: 30, reason: "PURCHASE")
    let recovered = transaction(2, monthly3, from: 50, to: 80)
    let lapse = Lapse(from: at(30), graceUntil: at(46), retryUntil: at(50), recoveredAt: at(50))
    let model = subscription([lapsed, recovered], lapses: [lapse])
    #expect(sample(model, 31) == TruthSample(at: at(31), deviceLimit: 3, status: .gracePeriod))
    #expect(sample(model, 47) == TruthSample(at: at(47), deviceLimit: 0, status: .billingRetry))
    #expect(sample(model, 51)?.status == .active)
}

@Test func aRecoveryInGraceLeavesOnlyTheStatusOpen() {
    let lapsed = transaction(1, monthly3, from: 0, to: 30, reason: "PURCHASE")
    let recovered = transaction(2, monthly3, from: 30, to: 60)
    var lapse = Lapse(from: at(30), graceUntil: at(46), retryUntil: at(35), recoveredAt: at(35))
    lapse.recoveredInGrace = true
    let model = subscription([lapsed, recovered], lapses: [lapse])
    #expect(sample(model, 33) == TruthSample(at: at(33), deviceLimit: 3, status: nil))
    #expect(sample(model, 36)?.status == .active)
}

@Test func aFamilyRevokeCountsFromItsDate() {
    var shared = transaction(1, monthly3, from: 0, to: 30, reason: "PURCHASE")
    shared.revocation = .init(date: at(20), reason: nil, type: "FAMILY_REVOKE", percentage: nil)
    let model = subscription([shared])
    #expect(sample(model, 21) == TruthSample(at: at(21), deviceLimit: 0, status: .revoked))
}
