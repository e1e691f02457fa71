import LedgerCore
import LedgerJSON
import Testing

@testable import LedgerSimulator

@Test func everyNotificationTypeOfTheLifecycleAppears() {
    let seen = Set(Fixtures.population.notifications.map(Fixtures.key))
    let expected = [
        "SUBSCRIBED/INITIAL_BUY", "SUBSCRIBED/RESUBSCRIBE", "DID_RENEW", "DID_RENEW/BILLING_RECOVERY",
        "DID_CHANGE_RENEWAL_PREF/UPGRADE", "DID_CHANGE_RENEWAL_PREF/DOWNGRADE", "DID_CHANGE_RENEWAL_PREF",
        "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_ENABLED",
        "EXPIRED/VOLUNTARY", "EXPIRED/BILLING_RETRY", "DID_FAIL_TO_RENEW/GRACE_PERIOD", "DID_FAIL_TO_RENEW",
        "GRACE_PERIOD_EXPIRED", "REFUND", "REFUND_REVERSED", "REVOKE", "RENEWAL_EXTENDED", "CONSUMPTION_REQUEST",
        "REFUND_DECLINED", "PRICE_INCREASE/PENDING", "PRICE_INCREASE/ACCEPTED", "OFFER_REDEEMED", "TEST",
    ]
    for type in expected {
        #expect(seen.contains(type), "no \(type) in a 300-user, 12-month run")
    }
}

@Test func refundsHitOneToTwoPercentOfTransactions() {
    let notifications = Fixtures.population.notifications
    let purchases = notifications.filter {
        ($0.type == "SUBSCRIBED" || $0.type == "DID_RENEW" || $0.subtype == "UPGRADE")
    }.count
    let refunds = notifications.filter { $0.type == "REFUND" }.count
    let rate = Double(refunds) / Double(purchases)
    #expect(rate >= 0.008 && rate <= 0.025, "refund rate \(rate)")
    // Some refunds are of a past period: their transaction is not the latest one of the subscription.
    let pastRefunds = notifications.filter { $0.type == "REFUND" && $0.status == 1 }
    #expect(!pastRefunds.isEmpty)
}

@Test func smallPlansOutnumberLargeOnes() {
    var byDevices = [Int](repeating: 0, count: 11)
    for notification in Fixtures.population.notifications where notification.subtype == "INITIAL_BUY" {
        let product = notification.transaction!["productId"]!.string!
        byDevices[Catalog.visla.devices(for: product)] += 1
    }
    let small = byDevices[1] + byDevices[2] + byDevices[3]
    let large = byDevices[8] + byDevices[9] + byDevices[10]
    #expect(small > 3 * large)
    #expect(byDevices[1] > byDevices[5])
    #expect(byDevices[5] > 0 && large > 0)
}

@Test func everyPeriodIsSold() {
    let products = Set(Fixtures.transactions(Fixtures.population).map { $0.transaction["productId"]!.string! })
    for period in ["monthly", "semiannual", "annual"] {
        #expect(products.contains { $0.contains(period) })
    }
}

@Test func orphansCarryNoAccountTokenAndFamilyMembersAreFamilyShared() {
    let pairs = Fixtures.transactions(Fixtures.population)
    let orphans = Set(Fixtures.population.truth.orphans.map(\.originalTransactionId))
    #expect(!orphans.isEmpty)
    for (_, transaction) in pairs where orphans.contains(transaction["originalTransactionId"]!.string!) {
        #expect(transaction["appAccountToken"] == nil)
    }
    let shared = pairs.filter { $0.transaction["inAppOwnershipType"] == "FAMILY_SHARED" }
    #expect(!shared.isEmpty)
    let revoked = pairs.filter { $0.notification.type == "REVOKE" }
    #expect(revoked.allSatisfy { $0.transaction["revocationType"] == "FAMILY_REVOKE" && $0.notification.status == 5 })
}

@Test func someUsersChurnAndSomeComeBack() {
    let population = Fixtures.population
    let churned = Set(population.notifications.filter { $0.type == "EXPIRED" }.compactMap(\.userId))
    let returned = Set(population.notifications.filter { $0.subtype == "RESUBSCRIBE" }.compactMap(\.userId))
    #expect(churned.count > population.config.users / 20)
    #expect(!returned.isEmpty && returned.isSubset(of: churned))
}
