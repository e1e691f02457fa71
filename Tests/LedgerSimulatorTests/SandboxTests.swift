import LedgerCore
import LedgerJSON
import Testing

@testable import LedgerSimulator

@Test func sandboxPeriodsAreCompressedAsAppleDoes() {
    let expected: [String: Int64] = ["monthly": 300_000, "semiannual": 1_800_000, "annual": 3_600_000]
    var seen = Set<String>()
    for (notification, transaction) in Fixtures.transactions(Fixtures.sandbox) {
        #expect(transaction["environment"] == "Sandbox")
        guard notification.type == "DID_RENEW" || notification.type == "SUBSCRIBED" else { continue }
        let product = Catalog.visla.product(id: transaction["productId"]!.string!)!
        let length = transaction["expiresDate"]!.int64! - transaction["purchaseDate"]!.int64!
        #expect(length == expected[product.period.name])
        seen.insert(product.period.name)
    }
    #expect(seen == Set(expected.keys))
}

@Test func sandboxGraceAndRetryAreCompressedByTheSameFactor() {
    let notifications = Fixtures.sandbox.notifications
    let grace = notifications.filter { $0.subtype == "GRACE_PERIOD" }
    #expect(!grace.isEmpty)
    for notification in grace {
        let expires = notification.transaction!["expiresDate"]!.int64!
        // 16 days of a 30-day month, at 5 minutes a month: 160 seconds.
        #expect(notification.renewal!["gracePeriodExpiresDate"]?.int64 == expires + 160_000)
    }
    for notification in notifications where notification.subtype == "BILLING_RETRY" {
        // 60 days: 10 minutes.
        #expect(notification.signedDate.milliseconds == notification.transaction!["expiresDate"]!.int64! + 600_000)
    }
}

@Test func sandboxSubscriptionsStopAfterTwelveRenewals() {
    var renewalsSincePurchase: [String: Int] = [:]
    var reachedTheLimit = 0
    for notification in Fixtures.sandbox.notifications {
        guard let otid = notification.originalTransactionId else { continue }
        switch notification.type {
        case "SUBSCRIBED": renewalsSincePurchase[otid] = 0
        case "DID_RENEW":
            renewalsSincePurchase[otid, default: 0] += 1
            #expect(renewalsSincePurchase[otid]! <= SimulationConfig.sandboxRenewalLimit)
        case "EXPIRED" where renewalsSincePurchase[otid] == SimulationConfig.sandboxRenewalLimit:
            reachedTheLimit += 1
        default: break
        }
    }
    #expect(reachedTheLimit > 0)
}

@Test func sandboxNotificationsSayTheirEnvironment() {
    for notification in Fixtures.sandbox.notifications {
        let data = notification.envelope["data"]!.object!
        #expect(data["environment"] == "Sandbox")
        #expect(notification.renewal.map { $0["environment"] == "Sandbox" } ?? true)
        // Apple's sandbox TEST notifications carry no appAppleId.
        #expect((data["appAppleId"] == nil) == (notification.type == "TEST"))
    }
}

@Test func theSandboxSimulationFitsItsCompressedSpan() {
    let truth = Fixtures.sandbox.truth
    #expect(truth.end.milliseconds - truth.start.milliseconds == 24 * 300_000)
    #expect(Fixtures.sandbox.notifications.allSatisfy { $0.signedDate < truth.end })
    #expect(truth.users.contains { $0.samples.contains { $0.deviceLimit > 0 } })
}
