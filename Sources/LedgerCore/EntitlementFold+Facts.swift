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
        let otid: String?

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

        // The notification envelope.
        let type: String?
        let subtype: String?
        let notificationSigned: Instant?

        /// An FNV-style hash over the UTF-8 bytes, a word at a time: only used to bring equal keys together.
        static func hash(_ key: String) -> UInt64 {
            var copy = key
            return copy.withUTF8 { bytes in
                var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(bytes.count)
                guard let base = bytes.baseAddress else { return hash }
                let raw = UnsafeRawPointer(base)
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
        }

        /// When the record's App Store state was signed: the notification's, else the renewal info's.
        var signalTime: Instant? { notificationSigned ?? renewalSigned }

        init(_ entries: UnsafeBufferPointer<LedgerEntry>, _ entry: Int) {
            self.entry = entry
            seq = entries[entry].seq
            recordedAt = entries[entry].recordedAt
            key = entries[entry].record.idempotencyKey
            keyHash = Self.hash(key)
            isLink = entries[entry].record.source == .link
            if let notification = entries[entry].record.notification {
                type = notification.type
                subtype = notification.subtype
                notificationSigned = notification.signedDate
            } else {
                type = nil
                subtype = nil
                notificationSigned = nil
            }
            var otid: String?
            if let facts = entries[entry].record.transaction {
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
            if let facts = entries[entry].record.renewal {
                otid = otid ?? facts.originalTransactionId
                renewalSigned = facts.signedDate
                autoRenew = facts.autoRenewStatus
                autoRenewProductId = facts.autoRenewProductId
                gracePeriodExpires = facts.gracePeriodExpiresDate
                retrying = facts.isInBillingRetryPeriod
            } else {
                renewalSigned = nil
                autoRenew = nil
                autoRenewProductId = nil
                gracePeriodExpires = nil
                retrying = nil
            }
            self.otid = otid ?? entries[entry].record.subject.originalTransactionId
        }
    }
}
