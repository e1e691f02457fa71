import LedgerCore
import LedgerJSON
import Testing

@testable import LedgerSimulator

private func int(_ object: JSONObject, _ key: String) -> Int64? { object[key]?.int64 }

@Test func envelopesCarryAppleFields() {
    for notification in Fixtures.population.notifications {
        let envelope = notification.envelope
        #expect(envelope["version"] == "2.0")
        #expect(envelope["signedDate"]?.int64 == notification.signedDate.milliseconds)
        #expect(envelope["notificationUUID"]?.string == AccountToken.canonical(notification.uuid))
        let data = envelope["data"]!.object!
        #expect(data["bundleId"] == "com.visla.gps")
        #expect(data["environment"] == "Production")
        #expect(data["appAppleId"]?.int64 == 1_234_567_890)
        if notification.type == "TEST" {
            #expect(data["signedTransactionInfo"] == nil && data["status"] == nil)
        } else {
            #expect((1...5).contains(data["status"]?.int64 ?? 0))
            #expect(data["bundleVersion"] != nil)
        }
    }
}

@Test func transactionsCarryAppleFieldsAndCatalogPrices() {
    var webOrders = Set<String>()
    var transactionIds = Set<String>()
    for (notification, transaction) in Fixtures.transactions(Fixtures.population) {
        let productId = transaction["productId"]!.string!
        let product = Catalog.visla.product(id: productId)!
        #expect(transaction["price"]?.int64 == product.price.milliunits)
        #expect(transaction["currency"] == "EUR")
        #expect(transaction["type"] == "Auto-Renewable Subscription")
        #expect(transaction["quantity"] == 1)
        #expect(transaction["subscriptionGroupIdentifier"] == "21752814")
        let transactionId = transaction["transactionId"]!.string!
        #expect(transactionId.allSatisfy { $0.isNumber })
        #expect(int(transaction, "expiresDate")! > int(transaction, "purchaseDate")!)
        #expect(int(transaction, "originalPurchaseDate")! <= int(transaction, "purchaseDate")!)
        if let token = transaction["appAccountToken"]?.string {
            #expect(token == AccountToken.token(forUser: notification.userId!))
        }
        switch Fixtures.key(notification) {
        case "SUBSCRIBED/INITIAL_BUY", "SUBSCRIBED/RESUBSCRIBE", "DID_CHANGE_RENEWAL_PREF/UPGRADE":
            #expect(transaction["transactionReason"] == "PURCHASE")
            #expect(transactionIds.insert(transaction["transactionId"]!.string!).inserted)
            #expect(webOrders.insert(transaction["webOrderLineItemId"]!.string!).inserted)
        case "DID_RENEW", "DID_RENEW/BILLING_RECOVERY":
            #expect(transaction["transactionReason"] == "RENEWAL")
            #expect(transactionIds.insert(transaction["transactionId"]!.string!).inserted)
            #expect(webOrders.insert(transaction["webOrderLineItemId"]!.string!).inserted)
        default: break
        }
    }
}

@Test func theOriginalTransactionIdIsConstantPerSubscription() {
    var byUser: [Int64: Set<String>] = [:]
    for (notification, transaction) in Fixtures.transactions(Fixtures.population) {
        byUser[notification.userId!, default: []].insert(transaction["originalTransactionId"]!.string!)
        #expect(transaction["originalTransactionId"]?.string == notification.originalTransactionId)
    }
    #expect(byUser.values.allSatisfy { $0.count == 1 })
}

@Test func renewalPriceIsAbsentWhenAutoRenewIsOff() {
    for notification in Fixtures.population.notifications {
        guard let renewal = notification.renewal else { continue }
        if renewal["autoRenewStatus"] == 0 {
            #expect(renewal["renewalPrice"] == nil && renewal["currency"] == nil)
        } else {
            let product = Catalog.visla.product(id: renewal["autoRenewProductId"]!.string!)!
            #expect(renewal["renewalPrice"]?.int64 == product.price.milliunits)
        }
    }
}

@Test func upgradesStartANewPeriodNowWithMoreDevices() {
    let notifications = Fixtures.population.notifications
    for (index, notification) in notifications.enumerated() where notification.subtype == "UPGRADE" {
        let transaction = notification.transaction!
        #expect(int(transaction, "purchaseDate") == notification.signedDate.milliseconds)
        let previous = notifications[..<index].last { $0.originalTransactionId == notification.originalTransactionId }!
        let before = Catalog.visla.devices(for: previous.transaction!["productId"]!.string!)
        #expect(Catalog.visla.devices(for: transaction["productId"]!.string!) > before)
        #expect(transaction["transactionId"] != previous.transaction!["transactionId"])
    }
}

@Test func downgradesTakeEffectAtTheNextRenewalUnlessCancelled() {
    let notifications = Fixtures.population.notifications
    var checked = 0
    for (index, notification) in notifications.enumerated() where notification.subtype == "DOWNGRADE" {
        let pending = notification.renewal!["autoRenewProductId"]!
        #expect(pending != notification.transaction!["productId"])
        let later = notifications[(index + 1)...].filter {
            $0.originalTransactionId == notification.originalTransactionId
        }
        guard let renewal = later.first(where: { $0.type == "DID_RENEW" }) else { continue }
        let changedMeanwhile = later.prefix { $0.type != "DID_RENEW" }.contains {
            ["DID_CHANGE_RENEWAL_PREF", "EXPIRED", "SUBSCRIBED"].contains($0.type)
        }
        if !changedMeanwhile {
            #expect(renewal.transaction!["productId"] == pending)
            checked += 1
        }
    }
    #expect(checked > 0)
}

@Test func refundsAndRevokesAreSignedIntoTheTransaction() {
    for notification in Fixtures.population.notifications where notification.type == "REFUND" {
        let transaction = notification.transaction!
        #expect(int(transaction, "revocationDate") == notification.signedDate.milliseconds)
        #expect([0, 1].contains(int(transaction, "revocationReason")))
        let type = transaction["revocationType"]?.string
        #expect(type == "REFUND_FULL" || type == "REFUND_PRORATED")
        #expect((type == "REFUND_PRORATED") == (transaction["revocationPercentage"] != nil))
    }
    let reversed = Fixtures.population.notifications.filter { $0.type == "REFUND_REVERSED" }
    #expect(!reversed.isEmpty)
    for notification in reversed {
        let transaction = notification.transaction!
        #expect(transaction["revocationDate"] == nil)
        let refunded = Fixtures.population.notifications.contains {
            $0.type == "REFUND" && $0.transaction!["transactionId"] == transaction["transactionId"]
        }
        #expect(refunded)
    }
}

@Test func renewalExtensionsResignTheSameTransactionWithALaterExpiry() {
    let notifications = Fixtures.population.notifications
    for (index, notification) in notifications.enumerated() where notification.type == "RENEWAL_EXTENDED" {
        let transaction = notification.transaction!
        let previous = notifications[..<index].last {
            $0.transaction?["transactionId"] == transaction["transactionId"]
        }!
        #expect(int(transaction, "expiresDate")! > int(previous.transaction!, "expiresDate")!)
    }
}

@Test func upgradedAwayTransactionsReappearWithIsUpgraded() {
    let upgraded = Fixtures.transactions(Fixtures.population).filter { $0.transaction["isUpgraded"] == true }
    #expect(!upgraded.isEmpty)
    #expect(upgraded.allSatisfy { ["CONSUMPTION_REQUEST", "REFUND_DECLINED"].contains($0.notification.type) })
}

@Test func gracePeriodsLastSixteenDaysAndBillingRetrySixty() {
    let notifications = Fixtures.population.notifications
    for notification in notifications where notification.subtype == "GRACE_PERIOD" {
        let expires = int(notification.transaction!, "expiresDate")!
        #expect(int(notification.renewal!, "gracePeriodExpiresDate") == expires + 16 * 86_400_000)
        #expect(notification.status == 4)
        #expect(notification.renewal!["isInBillingRetryPeriod"] == true)
    }
    for notification in notifications where notification.subtype == "BILLING_RETRY" {
        let expires = int(notification.transaction!, "expiresDate")!
        #expect(notification.signedDate.milliseconds == expires + 60 * 86_400_000)
        #expect(notification.renewal!["expirationIntent"] == 2)
    }
}
