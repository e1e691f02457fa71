extension EntitlementFold {
    /// What the fold reads of one entry, extracted once, flat.
    ///
    /// Reading a field through an optional fact (`record.transaction?.productId`) copies the whole optional,
    /// retaining every string in it; in sorts and scans that dominated a query's cost. The fold copies each
    /// entry's facts once into this flat form (no nested optionals) and works on it.
    struct Fact {
        let entry: Int
        let seq: UInt64
        let recordedAt: Instant
        let key: FoldText
        /// A hash of ``key``: duplicates are found by sorting on it (then on the key).
        let keyHash: UInt64
        let isLink: Bool
        /// An operator correction (``RecordSource/correction``): the fold reads it from the whole record.
        let isCorrection: Bool
        /// The record carries a correction, link or void part (whatever its source).
        let hasOperatorPart: Bool
        /// An operator's void (``RecordSource/void``, or a record with a void part): never a member of a
        /// subscription; it takes the record it names (read from the whole record: voids are rare) out of the
        /// fold's input.
        let isVoid: Bool
        let otid: FoldText?
        /// The subject's user id (the projection table lists a component's users by it).
        let userId: Int64?

        // The transaction, when `hasTransaction` (``FoldText/none`` otherwise).
        let hasTransaction: Bool
        let transactionId: FoldText
        let productId: FoldText
        let transactionSigned: Instant
        let purchase: Instant
        let expires: Instant?
        let revocation: Instant?
        /// Revoked by Family Sharing (see ``isFamilyRevocation(revocationType:ownership:revoke:)``).
        let familyRevocation: Bool
        let upgraded: Bool
        /// A consumable (transaction `type` `Consumable`): used up when bought, it grants no entitlement.
        let consumable: Bool
        let token: FoldText?

        // The renewal info, when `renewalSigned` is set.
        let renewalSigned: Instant?
        let autoRenew: Bool?
        let autoRenewProductId: FoldText?
        let gracePeriodExpires: Instant?
        let retrying: Bool?
        let renewalDate: Instant?

        // The notification envelope: what its type and subtype say about billing, and when it was signed.
        let signal: SignalKind
        let notificationSigned: Instant?

        /// An FNV-style hash over UTF-8 bytes, a word at a time: only used to bring equal texts together, in
        /// memory (never stored). Texts of eight bytes or more end with the word that ends at their last byte
        /// (overlapping the one before, the length being hashed in first): an identifier's few trailing bytes
        /// cost one step instead of one each.
        @inline(__always)
        static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
            let count = bytes.count
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(truncatingIfNeeded: count)
            guard let raw = bytes.baseAddress else { return hash }
            guard count >= 8 else {
                for offset in 0..<count {
                    hash = (hash ^ UInt64(raw.load(fromByteOffset: offset, as: UInt8.self))) &* 0x100_0000_01B3
                }
                return hash
            }
            var offset = 0
            while true {
                let last = offset &+ 8 >= count
                let word = raw.loadUnaligned(fromByteOffset: last ? count &- 8 : offset, as: UInt64.self)
                hash = (hash ^ word) &* 0x100_0000_01B3
                hash ^= hash >> 29
                if last { return hash }
                offset &+= 8
            }
        }

        /// Whether a transaction version's revocation is a Family Sharing removal: its revocationType says
        /// `FAMILY_REVOKE`, or a `REVOKE` notification carries it, or — when Apple gave no revocationType (a legacy
        /// receipt's cancellation) — the transaction was shared through Family Sharing (inAppOwnershipType
        /// `FAMILY_SHARED`): the family member paid nothing that could be refunded.
        static func isFamilyRevocation<Bytes: Collection<UInt8>>(
            revocationType: Bytes?, ownership: Bytes?, revoke: Bool
        ) -> Bool {
            if revoke { return true }
            if let revocationType { return spells(revocationType, familyRevokeType) }
            return ownership.map { spells($0, familySharedOwnership) } ?? false
        }

        /// Whether a transaction's `type` says `Consumable`.
        static func isConsumable<Bytes: Collection<UInt8>>(_ type: Bytes?) -> Bool {
            type.map { spells($0, consumableType) } ?? false
        }

        /// When the record's App Store state was signed: the notification's, else the renewal info's.
        var signalTime: Instant? { notificationSigned ?? renewalSigned }

        /// Every field given (``FoldRecords`` reads them from the encoding).
        init(
            entry: Int, seq: UInt64, recordedAt: Instant, key: FoldText, keyHash: UInt64, isLink: Bool,
            isCorrection: Bool, hasOperatorPart: Bool, otid: FoldText?, userId: Int64?, hasTransaction: Bool,
            transactionId: FoldText, productId: FoldText, transactionSigned: Instant, purchase: Instant,
            expires: Instant?, revocation: Instant?, familyRevocation: Bool, upgraded: Bool, consumable: Bool,
            token: FoldText?,
            renewalSigned: Instant?, autoRenew: Bool?, autoRenewProductId: FoldText?, gracePeriodExpires: Instant?,
            retrying: Bool?, renewalDate: Instant?, signal: SignalKind, notificationSigned: Instant?,
            isVoid: Bool = false
        ) {
            self.entry = entry
            self.seq = seq
            self.recordedAt = recordedAt
            self.key = key
            self.keyHash = keyHash
            self.isLink = isLink
            self.isCorrection = isCorrection
            self.hasOperatorPart = hasOperatorPart
            self.isVoid = isVoid
            self.otid = otid
            self.userId = userId
            self.hasTransaction = hasTransaction
            self.transactionId = transactionId
            self.productId = productId
            self.transactionSigned = transactionSigned
            self.purchase = purchase
            self.expires = expires
            self.revocation = revocation
            self.familyRevocation = familyRevocation
            self.upgraded = upgraded
            self.consumable = consumable
            self.token = token
            self.renewalSigned = renewalSigned
            self.autoRenew = autoRenew
            self.autoRenewProductId = autoRenewProductId
            self.gracePeriodExpires = gracePeriodExpires
            self.retrying = retrying
            self.renewalDate = renewalDate
            self.signal = signal
            self.notificationSigned = notificationSigned
        }

        /// The facts of one entry, at position `entry` of the fold's input, its strings added to `texts`.
        init(_ entry: Int, _ ledgerEntry: borrowing LedgerEntry, texts: inout FoldTexts) {
            self.entry = entry
            seq = ledgerEntry.seq
            recordedAt = ledgerEntry.recordedAt
            let record = ledgerEntry.record
            key = texts.add(record.idempotencyKey)
            keyHash = texts.hash(key)
            isLink = record.source == .link
            isCorrection = record.source == .correction
            hasOperatorPart = record.correction != nil || record.link != nil || record.void != nil
            isVoid = record.source == .void || record.void != nil
            userId = record.subject.userId
            var type: String?
            if let notification = record.notification {
                type = notification.type
                signal = SignalKind(type: notification.type, subtype: notification.subtype)
                notificationSigned = notification.signedDate
            } else {
                signal = .none
                notificationSigned = nil
            }
            var otid: FoldText?
            if let facts = record.transaction {
                otid = texts.add(facts.originalTransactionId)
                hasTransaction = true
                transactionId = texts.add(facts.transactionId)
                productId = texts.add(facts.productId)
                transactionSigned = facts.signedDate
                purchase = facts.purchaseDate
                expires = facts.expiresDate
                revocation = facts.revocationDate
                familyRevocation = Self.isFamilyRevocation(
                    revocationType: facts.revocationType?.utf8, ownership: facts.inAppOwnershipType?.utf8,
                    revoke: SignalKind.isRevoke(type))
                upgraded = facts.isUpgraded
                consumable = Self.isConsumable(facts.type?.utf8)
                token = facts.appAccountToken.map { texts.add($0) }
            } else {
                hasTransaction = false
                transactionId = .none
                productId = .none
                transactionSigned = .distantPast
                purchase = .distantPast
                expires = nil
                revocation = nil
                familyRevocation = false
                upgraded = false
                consumable = false
                token = nil
            }
            if let facts = record.renewal {
                if otid == nil { otid = texts.add(facts.originalTransactionId) }
                renewalSigned = facts.signedDate
                autoRenew = facts.autoRenewStatus
                autoRenewProductId = facts.autoRenewProductId.map { texts.add($0) }
                gracePeriodExpires = facts.gracePeriodExpiresDate
                retrying = facts.isInBillingRetryPeriod
                renewalDate = facts.renewalDate
            } else {
                renewalSigned = nil
                autoRenew = nil
                autoRenewProductId = nil
                gracePeriodExpires = nil
                retrying = nil
                renewalDate = nil
            }
            if otid == nil, let subject = record.subject.originalTransactionId { otid = texts.add(subject) }
            self.otid = otid
        }
    }

    /// What a notification's type (and subtype) say about billing: the fold reads nothing else of them.
    enum SignalKind: UInt8, Sendable {
        /// No notification, or a type that says nothing about billing.
        case none
        case expired
        case didFailToRenew
        /// `DID_FAIL_TO_RENEW` with subtype `GRACE_PERIOD`.
        case didFailToRenewGracePeriod
        case gracePeriodExpired
        case didRenew

        /// The kind of a notification's type and subtype, given as UTF-8 bytes.
        init(type: UnsafeRawBufferPointer, subtype: UnsafeRawBufferPointer?) {
            // The names differ in length: one comparison at most.
            switch type.count {
            case Names.expired.utf8CodeUnitCount where spells(type, Names.expired):
                self = .expired
            case Names.didFailToRenew.utf8CodeUnitCount where spells(type, Names.didFailToRenew):
                let grace = subtype.map { spells($0, Names.gracePeriod) } ?? false
                self = grace ? .didFailToRenewGracePeriod : .didFailToRenew
            case Names.gracePeriodExpired.utf8CodeUnitCount where spells(type, Names.gracePeriodExpired):
                self = .gracePeriodExpired
            case Names.didRenew.utf8CodeUnitCount where spells(type, Names.didRenew):
                self = .didRenew
            default:
                self = .none
            }
        }

        /// The kind of a notification's type and subtype.
        init(type: String, subtype: String?) {
            var type = type
            var subtype = subtype
            self = type.withUTF8 { typeBytes in
                let typeRaw = UnsafeRawBufferPointer(typeBytes)
                guard subtype != nil else { return SignalKind(type: typeRaw, subtype: nil) }
                return subtype!.withUTF8 { SignalKind(type: typeRaw, subtype: UnsafeRawBufferPointer($0)) }
            }
        }

        /// Whether a type's bytes spell `REVOKE`.
        static func isRevoke(_ type: UnsafeRawBufferPointer) -> Bool { spells(type, Names.revoke) }

        /// Whether a type spells `REVOKE`.
        static func isRevoke(_ type: String?) -> Bool {
            guard var type else { return false }
            return type.withUTF8 { isRevoke(UnsafeRawBufferPointer($0)) }
        }

        /// The App Store's spellings the kinds are read from (those of ``NotificationType`` and
        /// ``NotificationSubtype``; a test checks they agree), as static strings: their bytes are constants.
        enum Names {
            static let expired: StaticString = "EXPIRED"
            static let didFailToRenew: StaticString = "DID_FAIL_TO_RENEW"
            static let gracePeriodExpired: StaticString = "GRACE_PERIOD_EXPIRED"
            static let didRenew: StaticString = "DID_RENEW"
            static let revoke: StaticString = "REVOKE"
            static let gracePeriod: StaticString = "GRACE_PERIOD"
        }
    }
}

/// Whether `bytes` spell `name`, their lengths compared first (a record decoded for the fold asks this of most
/// transactions, and the names seldom match); contiguous bytes a word at a time.
@inline(__always)
private func spells<Bytes: Collection<UInt8>>(_ bytes: Bytes, _ name: StaticString) -> Bool {
    guard bytes.count == name.utf8CodeUnitCount else { return false }
    let spelling = UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
    return bytes.withContiguousStorageIfAvailable { FoldTexts.equal(UnsafeRawBufferPointer($0), spelling) }
        ?? bytes.elementsEqual(spelling)
}
