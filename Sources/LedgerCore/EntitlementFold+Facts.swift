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
        let key: String
        /// A hash of ``key``: duplicates are found by sorting on it (then on the key).
        let keyHash: UInt64
        let isLink: Bool
        /// An operator correction (``RecordSource/correction``): the fold reads it from the whole record.
        let isCorrection: Bool
        /// The record carries a correction or a link part (whatever its source).
        let hasOperatorPart: Bool
        let otid: String?
        /// The subject's user id (the projection table lists a component's users by it).
        let userId: Int64?

        // The transaction, when `hasTransaction`.
        let hasTransaction: Bool
        let transactionId: String
        let productId: String
        let transactionSigned: Instant
        let purchase: Instant
        let expires: Instant?
        let revocation: Instant?
        /// Revoked by Family Sharing (revocationType `FAMILY_REVOKE`, or carried by a `REVOKE` notification).
        let familyRevocation: Bool
        let upgraded: Bool
        let token: String?

        // The renewal info, when `renewalSigned` is set.
        let renewalSigned: Instant?
        let autoRenew: Bool?
        let autoRenewProductId: String?
        let gracePeriodExpires: Instant?
        let retrying: Bool?
        let renewalDate: Instant?

        // The notification envelope.
        let type: String?
        let subtype: String?
        let notificationSigned: Instant?

        /// An FNV-style hash over the UTF-8 bytes, a word at a time: only used to bring equal keys together.
        static func hash(_ key: String) -> UInt64 {
            var copy = key
            return copy.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
        }

        /// ``hash(_:)`` of a string's UTF-8 bytes.
        @inline(__always)
        static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(bytes.count)
            guard let raw = bytes.baseAddress else { return hash }
            var offset = 0
            while offset + 8 <= bytes.count {
                hash = (hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x100_0000_01B3
                hash ^= hash >> 29
                offset += 8
            }
            while offset < bytes.count {
                hash = (hash ^ UInt64(bytes[offset])) &* 0x100_0000_01B3
                offset += 1
            }
            return hash
        }

        /// When the record's App Store state was signed: the notification's, else the renewal info's.
        var signalTime: Instant? { notificationSigned ?? renewalSigned }

        /// Every field given (``FoldRecords`` reads them from the encoding).
        init(
            entry: Int, seq: UInt64, recordedAt: Instant, key: String, keyHash: UInt64, isLink: Bool,
            isCorrection: Bool, hasOperatorPart: Bool, otid: String?, userId: Int64?, hasTransaction: Bool,
            transactionId: String, productId: String, transactionSigned: Instant, purchase: Instant,
            expires: Instant?, revocation: Instant?, familyRevocation: Bool, upgraded: Bool, token: String?,
            renewalSigned: Instant?, autoRenew: Bool?, autoRenewProductId: String?, gracePeriodExpires: Instant?,
            retrying: Bool?, renewalDate: Instant?, type: String?, subtype: String?, notificationSigned: Instant?
        ) {
            self.entry = entry
            self.seq = seq
            self.recordedAt = recordedAt
            self.key = key
            self.keyHash = keyHash
            self.isLink = isLink
            self.isCorrection = isCorrection
            self.hasOperatorPart = hasOperatorPart
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
            self.token = token
            self.renewalSigned = renewalSigned
            self.autoRenew = autoRenew
            self.autoRenewProductId = autoRenewProductId
            self.gracePeriodExpires = gracePeriodExpires
            self.retrying = retrying
            self.renewalDate = renewalDate
            self.type = type
            self.subtype = subtype
            self.notificationSigned = notificationSigned
        }

        init(_ entries: UnsafeBufferPointer<LedgerEntry>, _ entry: Int) {
            self.init(entry, entries[entry])
        }

        /// The facts of one entry, at position `entry` of the fold's input.
        init(_ entry: Int, _ ledgerEntry: borrowing LedgerEntry) {
            self.entry = entry
            seq = ledgerEntry.seq
            recordedAt = ledgerEntry.recordedAt
            let record = ledgerEntry.record
            key = record.idempotencyKey
            keyHash = Self.hash(key)
            isLink = record.source == .link
            isCorrection = record.source == .correction
            hasOperatorPart = record.correction != nil || record.link != nil
            userId = record.subject.userId
            if let notification = record.notification {
                type = notification.type
                subtype = notification.subtype
                notificationSigned = notification.signedDate
            } else {
                type = nil
                subtype = nil
                notificationSigned = nil
            }
            var otid: String?
            if let facts = record.transaction {
                otid = facts.originalTransactionId
                hasTransaction = true
                transactionId = facts.transactionId
                productId = facts.productId
                transactionSigned = facts.signedDate
                purchase = facts.purchaseDate
                expires = facts.expiresDate
                revocation = facts.revocationDate
                familyRevocation = facts.revocationType == familyRevokeType || type == NotificationType.revoke
                upgraded = facts.isUpgraded
                token = facts.appAccountToken
            } else {
                hasTransaction = false
                transactionId = ""
                productId = ""
                transactionSigned = .distantPast
                purchase = .distantPast
                expires = nil
                revocation = nil
                familyRevocation = false
                upgraded = false
                token = nil
            }
            if let facts = record.renewal {
                otid = otid ?? facts.originalTransactionId
                renewalSigned = facts.signedDate
                autoRenew = facts.autoRenewStatus
                autoRenewProductId = facts.autoRenewProductId
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
            self.otid = otid ?? record.subject.originalTransactionId
        }
    }
}
