import Testing

@testable import LedgerCore

/// The fold reads a record's notification type, revocation type, ownership and transaction type by comparing
/// their bytes with constant spellings: each must be the App Store's, and each comparison must match exactly.
@Suite("Apple's names in the fold")
struct AppleNamesTests {
    typealias Kind = EntitlementFold.SignalKind

    @Test("the fold's constant spellings are those of the notification types and subtypes")
    func spellings() {
        #expect(Kind.Names.expired.description == NotificationType.expired)
        #expect(Kind.Names.didFailToRenew.description == NotificationType.didFailToRenew)
        #expect(Kind.Names.gracePeriodExpired.description == NotificationType.gracePeriodExpired)
        #expect(Kind.Names.didRenew.description == NotificationType.didRenew)
        #expect(Kind.Names.revoke.description == NotificationType.revoke)
        #expect(Kind.Names.gracePeriod.description == NotificationSubtype.gracePeriod)
    }

    @Test(
        "a notification's type and subtype give its billing signal",
        arguments: [
            ("EXPIRED", nil, Kind.expired), ("EXPIRED", "VOLUNTARY", .expired),
            ("DID_FAIL_TO_RENEW", nil, .didFailToRenew),
            ("DID_FAIL_TO_RENEW", "GRACE_PERIOD", .didFailToRenewGracePeriod),
            ("GRACE_PERIOD_EXPIRED", nil, .gracePeriodExpired), ("DID_RENEW", "BILLING_RECOVERY", .didRenew),
            ("DID_RENEWS", nil, .none), ("EXPIREd", nil, .none), ("SUBSCRIBED", "INITIAL_BUY", .none), ("", nil, .none),
        ] as [(String, String?, Kind)])
    func signals(type: String, subtype: String?, kind: Kind) {
        #expect(Kind(type: type, subtype: subtype) == kind)
        #expect(Kind.isRevoke(type) == false)
    }

    @Test("revocations by Family Sharing and consumables are recognised by their exact spellings")
    func familyAndConsumable() {
        func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
        typealias Fact = EntitlementFold.Fact
        #expect(Kind.isRevoke("REVOKE"))
        #expect(Fact.isFamilyRevocation(revocationType: bytes("FAMILY_REVOKE"), ownership: nil, revoke: false))
        #expect(
            !Fact.isFamilyRevocation(revocationType: bytes("REFUND"), ownership: bytes("FAMILY_SHARED"), revoke: false))
        #expect(Fact.isFamilyRevocation(revocationType: nil, ownership: bytes("FAMILY_SHARED"), revoke: false))
        #expect(!Fact.isFamilyRevocation(revocationType: nil, ownership: bytes("PURCHASED"), revoke: false))
        #expect(Fact.isFamilyRevocation(revocationType: nil as [UInt8]?, ownership: nil, revoke: true))
        #expect(Fact.isConsumable(bytes("Consumable")))
        #expect(!Fact.isConsumable(bytes("Consumables")))
        #expect(!Fact.isConsumable(bytes("Auto-Renewable Subscription")))
        #expect(!Fact.isConsumable(nil as [UInt8]?))
    }
}
