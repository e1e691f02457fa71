extension FoldRecords {
    /// Decodes one payload into the fold's facts (layout in `LedgerRecord+Binary.swift`), field by field in the
    /// order and with the checks of ``LedgerRecord/init(decoding:)``, up to the last fold field of a version 2
    /// record unless the batch is strict; see ``FoldRecords``.
    ///
    /// On success the payload has been added to ``texts`` (where the facts' texts point) and the record's facts
    /// appended to ``facts``, built in place (a few hundred bytes: built elsewhere and copied in, the copies cost a
    /// twentieth of the decoding); nothing otherwise.
    ///
    /// - Returns: the original transaction ids of the record's subject and transaction.
    mutating func decodeFact(seq: UInt64, recordedAt: Instant, _ payload: UnsafeRawBufferPointer, position: Int)
        throws(CoreError) -> (subject: FoldText?, transaction: FoldText?)
    {
        var reader = FactReader(payload)
        let version = try reader.primitives.readByte()
        var parts: UInt64 = 0
        var source: RecordSource?
        if version == 1 || version == LedgerRecord.currentVersion {
            parts = try reader.primitives.readVarint()
            try checkMask(parts, bits: 9, group: "record parts")
            _ = try reader.readRange()  // environment
            source = RecordSource(rawValue: try reader.primitives.readByte())
        }
        // A catalog part (bit 8) is read whole too; the fold takes no fact from it.
        guard let source, parts & 0b1_1111_0000 == 0, source != .correction, source != .link, source != .void else {
            // Operator records, and other versions (with the whole decoder's verdict on them): decoded whole.
            let record = try LedgerRecord(decoding: payload)
            let entry = LedgerEntry(seq: seq, recordedAt: recordedAt, record: record)
            _ = texts.append(payload)
            let fact = EntitlementFold.Fact(position, entry, texts: &texts)
            facts.append(fact)
            // The fact's id is the transaction's when the record carries one.
            return (record.subject.originalTransactionId.map { texts.add($0) }, fact.hasTransaction ? fact.otid : nil)
        }
        let key = try reader.readRange()

        let mask = try reader.primitives.readVarint()
        try checkMask(mask, bits: 3, group: "subject")
        let subjectOTID = mask & 1 << 0 != 0 ? try reader.readRange() : nil
        if mask & 1 << 1 != 0 { _ = try reader.readRange() }  // appAccountToken
        let userId = mask & 1 << 2 != 0 ? try reader.primitives.readSigned() : nil

        let notification: NotificationPart?
        let transaction: TransactionPart?
        let renewal: RenewalPart?
        if version == 1 {
            // The fold's fields are spread among the others: every field is read.
            notification = parts & 1 << 0 != 0 ? try NotificationPart(version1: &reader) : nil
            transaction = parts & 1 << 1 != 0 ? try TransactionPart(version1: &reader) : nil
            renewal = parts & 1 << 2 != 0 ? try RenewalPart(version1: &reader) : nil
            if parts & 1 << 3 != 0 { try reader.skipBytes(maxLength: LedgerRecord.maxEvidenceLength) }
            try Self.checkAtEnd(reader)
        } else {
            notification = parts & 1 << 0 != 0 ? try NotificationPart(&reader) : nil
            transaction = parts & 1 << 1 != 0 ? try TransactionPart(&reader) : nil
            renewal = parts & 1 << 2 != 0 ? try RenewalPart(&reader) : nil
            // The fold's fields end here; the others are read only to check them.
            if strict {
                if parts & 1 << 3 != 0 { try reader.skipBytes(maxLength: LedgerRecord.maxEvidenceLength) }
                try notification?.skipOtherFields(&reader)
                try transaction?.skipOtherFields(&reader)
                try renewal?.skipOtherFields(&reader)
                try Self.checkAtEnd(reader)
            }
        }

        // Only now, every byte it reads checked: the payload joins the batch's bytes, where the texts the fold
        // reads point.
        let base = texts.append(payload)
        let subject = subjectOTID.map { reader.text($0, at: base) }
        var otid: FoldText?
        var transactionOTID: FoldText?
        var transactionId = FoldText.none
        var productId = FoldText.none
        var token: FoldText?
        var familyRevocation = false
        var transactionSigned = Instant.distantPast
        var purchase = Instant.distantPast
        var expires: Instant?
        var revocation: Instant?
        var upgraded = false
        var consumable = false
        var signal = EntitlementFold.SignalKind.none
        var notificationSigned: Instant?
        if let notification {
            signal = EntitlementFold.SignalKind(
                type: reader.bytes(notification.type), subtype: notification.subtype.map { reader.bytes($0) })
            notificationSigned = notification.signedDate
        }
        if let transaction {
            transactionSigned = transaction.signedDate
            purchase = transaction.purchaseDate
            expires = transaction.expiresDate
            revocation = transaction.revocationDate
            upgraded = transaction.isUpgraded
            let id = reader.text(transaction.otid, at: base)
            otid = id
            transactionOTID = id
            transactionId = reader.text(transaction.transactionId, at: base)
            productId = reader.text(transaction.productId, at: base)
            token = transaction.token.map { reader.text($0, at: base) }
            familyRevocation = EntitlementFold.Fact.isFamilyRevocation(
                revocationType: transaction.revocationType.map { reader.bytes($0) },
                ownership: transaction.ownership.map { reader.bytes($0) },
                revoke: notification.map { EntitlementFold.SignalKind.isRevoke(reader.bytes($0.type)) } ?? false)
            consumable = EntitlementFold.Fact.isConsumable(transaction.type.map { reader.bytes($0) })
        }
        var renewalSigned: Instant?
        var autoRenew: Bool?
        var autoRenewProductId: FoldText?
        var gracePeriodExpires: Instant?
        var retrying: Bool?
        var renewalDate: Instant?
        if let renewal {
            if otid == nil { otid = reader.text(renewal.otid, at: base) }
            renewalSigned = renewal.signedDate
            autoRenew = renewal.autoRenew
            autoRenewProductId = renewal.autoRenewProductId.map { reader.text($0, at: base) }
            gracePeriodExpires = renewal.gracePeriodExpiresDate
            retrying = renewal.retrying
            renewalDate = renewal.renewalDate
        }
        let keyText = reader.text(key, at: base)
        facts.append(
            EntitlementFold.Fact(
                entry: position, seq: seq, recordedAt: recordedAt, key: keyText,
                keyHash: EntitlementFold.Fact.hash(reader.bytes(key)),
                isLink: false, isCorrection: false, hasOperatorPart: false, otid: otid ?? subject, userId: userId,
                hasTransaction: transaction != nil, transactionId: transactionId, productId: productId,
                transactionSigned: transactionSigned, purchase: purchase, expires: expires, revocation: revocation,
                familyRevocation: familyRevocation, upgraded: upgraded, consumable: consumable, token: token,
                renewalSigned: renewalSigned,
                autoRenew: autoRenew, autoRenewProductId: autoRenewProductId, gracePeriodExpires: gracePeriodExpires,
                retrying: retrying, renewalDate: renewalDate, signal: signal, notificationSigned: notificationSigned))
        return (subject, transactionOTID)
    }
}

extension FoldRecords {
    /// Throws unless every byte of the record has been read.
    static func checkAtEnd(_ reader: borrowing FactReader) throws(CoreError) {
        guard reader.primitives.isAtEnd else {
            throw CoreError(
                .malformed,
                "\(reader.primitives.remaining) unexpected bytes follow the record at byte \(reader.primitives.offset); "
                    + "the payload is damaged or not a ledger record")
        }
    }
}

/// The notification part, as far as the fold reads it.
struct NotificationPart {
    let mask: UInt64
    let type: ByteRange
    let subtype: ByteRange?
    let signedDate: Instant

    /// Reads version 2's fold fields of a notification.
    init(_ reader: inout FactReader) throws(CoreError) {
        mask = try reader.primitives.readVarint()
        try checkMask(mask, bits: 6, group: "notification")
        type = try reader.readRange()
        signedDate = try reader.primitives.readInstant()
        subtype = mask & 1 << 0 != 0 ? try reader.readRange() : nil
    }

    /// Steps over version 2's other fields of the notification, checking them.
    func skipOtherFields(_ reader: inout FactReader) throws(CoreError) {
        _ = try reader.readRange()  // uuid
        if mask & 1 << 1 != 0 { _ = try reader.primitives.readInt32() }  // status
        if mask & 1 << 2 != 0 { _ = try reader.readRange() }  // bundleId
        if mask & 1 << 3 != 0 { _ = try reader.primitives.readSigned() }  // appAppleId
        if mask & 1 << 4 != 0 { _ = try reader.readRange() }  // bundleVersion
        if mask & 1 << 5 != 0 { _ = try reader.readRange() }  // consumptionRequestReason
    }

    /// Reads a version 1 notification, every field.
    init(version1 reader: inout FactReader) throws(CoreError) {
        mask = try reader.primitives.readVarint()
        try checkMask(mask, bits: 6, group: "notification")
        type = try reader.readRange()
        _ = try reader.readRange()  // uuid
        signedDate = try reader.primitives.readInstant()
        subtype = mask & 1 << 0 != 0 ? try reader.readRange() : nil
        if mask & 1 << 1 != 0 { _ = try reader.primitives.readInt32() }  // status
        if mask & 1 << 2 != 0 { _ = try reader.readRange() }  // bundleId
        if mask & 1 << 3 != 0 { _ = try reader.primitives.readSigned() }  // appAppleId
        if mask & 1 << 4 != 0 { _ = try reader.readRange() }  // bundleVersion
        if mask & 1 << 5 != 0 { _ = try reader.readRange() }  // consumptionRequestReason
    }
}

/// The transaction part, as far as the fold reads it.
struct TransactionPart {
    let mask: UInt64
    let otid: ByteRange
    let transactionId: ByteRange
    let productId: ByteRange
    let purchaseDate: Instant
    let signedDate: Instant
    let expiresDate: Instant?
    let type: ByteRange?
    let token: ByteRange?
    let ownership: ByteRange?
    let revocationDate: Instant?
    let revocationType: ByteRange?
    var isUpgraded: Bool { mask & 1 << 11 != 0 }

    /// Reads version 2's fold fields of a transaction.
    init(_ reader: inout FactReader) throws(CoreError) {
        (mask, otid, transactionId, productId, purchaseDate, signedDate) = try Self.readRequiredFields(&reader)
        expiresDate = mask & 1 << 3 != 0 ? try reader.primitives.readInstant() : nil
        type = mask & 1 << 4 != 0 ? try reader.readRange() : nil
        token = mask & 1 << 5 != 0 ? try reader.readRange() : nil
        ownership = mask & 1 << 6 != 0 ? try reader.readRange() : nil
        revocationDate = mask & 1 << 7 != 0 ? try reader.primitives.readInstant() : nil
        revocationType = mask & 1 << 9 != 0 ? try reader.readRange() : nil
    }

    /// Steps over version 2's other fields of the transaction, checking them.
    func skipOtherFields(_ reader: inout FactReader) throws(CoreError) {
        if mask & 1 << 0 != 0 { _ = try reader.readRange() }  // webOrderLineItemId
        if mask & 1 << 1 != 0 { _ = try reader.readRange() }  // subscriptionGroupIdentifier
        if mask & 1 << 2 != 0 { _ = try reader.primitives.readInstant() }  // originalPurchaseDate
        if mask & 1 << 8 != 0 { _ = try reader.primitives.readInt32() }  // revocationReason
        if mask & 1 << 10 != 0 { _ = try reader.primitives.readInt32() }  // revocationPercentage
        try Self.skipPriceAndOffer(mask, &reader)
    }

    /// Reads a version 1 transaction, every field.
    init(version1 reader: inout FactReader) throws(CoreError) {
        (mask, otid, transactionId, productId, purchaseDate, signedDate) = try Self.readRequiredFields(&reader)
        if mask & 1 << 0 != 0 { _ = try reader.readRange() }  // webOrderLineItemId
        if mask & 1 << 1 != 0 { _ = try reader.readRange() }  // subscriptionGroupIdentifier
        if mask & 1 << 2 != 0 { _ = try reader.primitives.readInstant() }  // originalPurchaseDate
        expiresDate = mask & 1 << 3 != 0 ? try reader.primitives.readInstant() : nil
        type = mask & 1 << 4 != 0 ? try reader.readRange() : nil
        token = mask & 1 << 5 != 0 ? try reader.readRange() : nil
        ownership = mask & 1 << 6 != 0 ? try reader.readRange() : nil
        revocationDate = mask & 1 << 7 != 0 ? try reader.primitives.readInstant() : nil
        if mask & 1 << 8 != 0 { _ = try reader.primitives.readInt32() }  // revocationReason
        revocationType = mask & 1 << 9 != 0 ? try reader.readRange() : nil
        if mask & 1 << 10 != 0 { _ = try reader.primitives.readInt32() }  // revocationPercentage
        try Self.skipPriceAndOffer(mask, &reader)
    }

    /// Reads the mask and the fields every transaction has, first in both versions.
    @inline(__always)
    private static func readRequiredFields(_ reader: inout FactReader) throws(CoreError) -> (
        mask: UInt64, otid: ByteRange, transactionId: ByteRange, productId: ByteRange, purchaseDate: Instant,
        signedDate: Instant
    ) {
        let mask = try reader.primitives.readVarint()
        try checkMask(mask, bits: 20, group: "transaction")
        let otid = try reader.readRange()
        let transactionId = try reader.readRange()
        let productId = try reader.readRange()
        let purchaseDate = try reader.primitives.readInstant()
        return (mask, otid, transactionId, productId, purchaseDate, try reader.primitives.readInstant())
    }

    /// Steps over the fields from price to quantity, last in both versions.
    private static func skipPriceAndOffer(_ mask: UInt64, _ reader: inout FactReader) throws(CoreError) {
        if mask & 1 << 12 != 0 { _ = try reader.primitives.readSigned() }  // price
        if mask & 1 << 13 != 0 { _ = try reader.readRange() }  // currency
        if mask & 1 << 14 != 0 { _ = try reader.primitives.readInt32() }  // offerType
        if mask & 1 << 15 != 0 { _ = try reader.readRange() }  // offerIdentifier
        if mask & 1 << 16 != 0 { _ = try reader.readRange() }  // offerDiscountType
        if mask & 1 << 17 != 0 { _ = try reader.readRange() }  // transactionReason
        if mask & 1 << 18 != 0 { _ = try reader.readRange() }  // storefront
        if mask & 1 << 19 != 0 { _ = try reader.primitives.readInt32() }  // quantity
    }
}

/// The renewal part, as far as the fold reads it.
struct RenewalPart {
    let mask: UInt64
    let otid: ByteRange
    let signedDate: Instant
    let autoRenewProductId: ByteRange?
    let gracePeriodExpiresDate: Instant?
    let renewalDate: Instant?
    var autoRenew: Bool? { mask & 1 << 2 != 0 ? mask & 1 << 3 != 0 : nil }
    var retrying: Bool? { mask & 1 << 4 != 0 ? mask & 1 << 5 != 0 : nil }

    /// Reads version 2's fold fields of renewal info.
    init(_ reader: inout FactReader) throws(CoreError) {
        mask = try checkedRenewalMask(try reader.primitives.readVarint())
        otid = try reader.readRange()
        signedDate = try reader.primitives.readInstant()
        autoRenewProductId = mask & 1 << 1 != 0 ? try reader.readRange() : nil
        gracePeriodExpiresDate = mask & 1 << 6 != 0 ? try reader.primitives.readInstant() : nil
        renewalDate = mask & 1 << 8 != 0 ? try reader.primitives.readInstant() : nil
    }

    /// Steps over version 2's other fields of the renewal info, checking them.
    func skipOtherFields(_ reader: inout FactReader) throws(CoreError) {
        if mask & 1 << 0 != 0 { _ = try reader.readRange() }  // productId
        if mask & 1 << 7 != 0 { _ = try reader.primitives.readInt32() }  // expirationIntent
        try Self.skipLastFields(mask, &reader)
    }

    /// Reads version 1 renewal info, every field.
    init(version1 reader: inout FactReader) throws(CoreError) {
        mask = try checkedRenewalMask(try reader.primitives.readVarint())
        otid = try reader.readRange()
        signedDate = try reader.primitives.readInstant()
        if mask & 1 << 0 != 0 { _ = try reader.readRange() }  // productId
        autoRenewProductId = mask & 1 << 1 != 0 ? try reader.readRange() : nil
        gracePeriodExpiresDate = mask & 1 << 6 != 0 ? try reader.primitives.readInstant() : nil
        if mask & 1 << 7 != 0 { _ = try reader.primitives.readInt32() }  // expirationIntent
        renewalDate = mask & 1 << 8 != 0 ? try reader.primitives.readInstant() : nil
        try Self.skipLastFields(mask, &reader)
    }

    /// Steps over the fields from recentSubscriptionStartDate to currency, last in both versions.
    private static func skipLastFields(_ mask: UInt64, _ reader: inout FactReader) throws(CoreError) {
        if mask & 1 << 9 != 0 { _ = try reader.primitives.readInstant() }  // recentSubscriptionStartDate
        if mask & 1 << 10 != 0 { _ = try reader.primitives.readInt32() }  // priceIncreaseStatus
        if mask & 1 << 11 != 0 { _ = try reader.primitives.readSigned() }  // renewalPrice
        if mask & 1 << 12 != 0 { _ = try reader.readRange() }  // currency
    }
}
