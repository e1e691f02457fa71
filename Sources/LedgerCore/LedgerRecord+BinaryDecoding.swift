extension LedgerRecord {
    /// Decodes a record from its binary encoding (layout in `LedgerRecord+Binary.swift`).
    ///
    /// Never traps on hostile bytes: every length is bounded and every read checked.
    /// - Throws: ``CoreError`` `truncated`, `malformed`, `limitExceeded` or `unsupportedVersion`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(CoreError) {
        var reader = BinaryReader(bytes)
        let record = try LedgerRecord.decode(&reader)
        guard reader.isAtEnd else {
            throw CoreError(
                .malformed,
                "\(reader.remaining) unexpected bytes follow the record at byte \(reader.offset); "
                    + "the payload is damaged or not a ledger record")
        }
        self = record
    }

    /// Decodes a record from any collection of bytes (an array, a slice of a segment…).
    public init(decoding bytes: some Collection<UInt8>) throws(CoreError) {
        // The closures of the standard library's buffer accessors rethrow untyped errors: carry a Result.
        let decode = { (buffer: UnsafeBufferPointer<UInt8>) -> Result<LedgerRecord, CoreError> in
            Result { () throws(CoreError) in try LedgerRecord(decoding: UnsafeRawBufferPointer(buffer)) }
        }
        let result = bytes.withContiguousStorageIfAvailable(decode) ?? Array(bytes).withUnsafeBufferPointer(decode)
        self = try result.get()
    }

    private static func decode(_ reader: inout BinaryReader) throws(CoreError) -> LedgerRecord {
        let version = try reader.readByte()
        guard version == 1 || version == currentVersion else {
            if version > currentVersion {
                throw CoreError(
                    .unsupportedVersion,
                    "record encoding version \(version) is newer than this build reads (up to \(currentVersion)); "
                        + "upgrade ledger to read this log")
            }
            throw CoreError(.malformed, "record encoding version \(version) does not exist; the record is damaged")
        }
        let parts = try reader.readVarint()
        try checkMask(parts, bits: 9, group: "record parts")
        let environment = LedgerEnvironment(rawValue: try reader.readString())
        let source = RecordSource(rawValue: try reader.readByte())
        let key = try reader.readString()

        let mask = try reader.readVarint()
        try checkMask(mask, bits: 3, group: "subject")
        var subject = Subject()
        if mask & 1 << 0 != 0 { subject.originalTransactionId = try reader.readString() }
        if mask & 1 << 1 != 0 { subject.appAccountToken = try reader.readString() }
        if mask & 1 << 2 != 0 { subject.userId = try reader.readSigned() }

        if version == 1 {
            let notification = parts & 1 << 0 != 0 ? try NotificationFacts.decodeVersion1(&reader) : nil
            let transaction = parts & 1 << 1 != 0 ? try TransactionFacts.decodeVersion1(&reader) : nil
            let renewal = parts & 1 << 2 != 0 ? try RenewalFacts.decodeVersion1(&reader) : nil
            let last = try decodeLastParts(parts, &reader)
            return LedgerRecord(
                environment: environment, source: source, idempotencyKey: key, subject: subject,
                notification: notification, transaction: transaction, renewal: renewal, evidence: last.evidence,
                correction: last.correction, link: last.link, void: last.void, catalog: last.catalog)
        }
        let (notification, transaction, renewal, last) = try decodeVersion2Parts(parts, &reader)
        return LedgerRecord(
            environment: environment, source: source, idempotencyKey: key, subject: subject,
            notification: notification, transaction: transaction, renewal: renewal, evidence: last.evidence,
            correction: last.correction, link: last.link, void: last.void, catalog: last.catalog)
    }

    /// The evidence, correction, link (with its previous owner) and void parts, in both versions.
    typealias LastParts = (
        evidence: [UInt8]?, correction: Correction?, link: Link?, void: Voiding?, catalog: CatalogVersion?
    )

    /// Reads the evidence, correction, link (with its previous owner) and void parts, in both versions.
    private static func decodeLastParts(_ parts: UInt64, _ reader: inout BinaryReader) throws(CoreError)
        -> LastParts
    {
        let evidence = parts & 1 << 3 != 0 ? try reader.readBytes(maxLength: maxEvidenceLength) : nil
        let correction = parts & 1 << 4 != 0 ? try decodeCorrection(&reader) : nil
        var link: Link?
        if parts & 1 << 5 != 0 {
            link = Link(reason: try reader.readString(), operatorName: try reader.readString())
        }
        if parts & 1 << 6 != 0 {
            guard link != nil else {
                throw CoreError(.malformed, "a previous owner without a link; the record is damaged")
            }
            let mask = try reader.readVarint()
            try checkMask(mask, bits: 2, group: "previous owner")
            var owner = Subject()
            if mask & 1 << 0 != 0 { owner.appAccountToken = try reader.readString() }
            if mask & 1 << 1 != 0 { owner.userId = try reader.readSigned() }
            link?.previousOwner = owner
        }
        var void: Voiding?
        if parts & 1 << 7 != 0 {
            void = Voiding(
                seq: try reader.readVarint(), reason: try reader.readString(), operatorName: try reader.readString())
        }
        let catalog = parts & 1 << 8 != 0 ? try CatalogVersion.decode(&reader) : nil
        return (evidence, correction, link, void, catalog)
    }

    private static func decodeCorrection(_ reader: inout BinaryReader) throws(CoreError) -> Correction {
        let action: Correction.Action
        switch try reader.readByte() {
        case 0:
            action = .grant(
                productId: try reader.readString(), from: try reader.readInstant(), until: try reader.readInstant())
        case 1:
            action = .revoke(from: try reader.readInstant())
        case let other:
            throw CoreError(.malformed, "unknown correction action \(other); the record is damaged")
        }
        return Correction(action: action, reason: try reader.readString(), operatorName: try reader.readString())
    }
}

@inline(__always)
func checkMask(_ mask: UInt64, bits: Int, group: String) throws(CoreError) {
    guard mask >> UInt64(bits) == 0 else {
        throw CoreError(
            .malformed, "the \(group) mask \(mask) sets bits this version does not define; the record is damaged")
    }
}

extension BinaryReader {
    /// Reads a signed value that must fit 32 bits.
    @inline(__always)
    mutating func readInt32() throws(CoreError) -> Int32 { try cursor.readInt32() }
}

extension LedgerRecord {
    /// Version 2's parts after the subject: the notification's, transaction's and renewal's fold fields, the
    /// evidence, correction and link, then the three groups' other fields. Every field is read into a local and
    /// each value built once from them: a value built from an intermediate one holding its strings (retained into
    /// it, released after) made the whole decoder a quarter slower.
    private static func decodeVersion2Parts(_ parts: UInt64, _ reader: inout BinaryReader) throws(CoreError) -> (
        NotificationFacts?, TransactionFacts?, RenewalFacts?, LastParts
    ) {
        let hasNotification = parts & 1 << 0 != 0
        let hasTransaction = parts & 1 << 1 != 0
        let hasRenewal = parts & 1 << 2 != 0
        // The fold's fields.
        var notificationMask: UInt64 = 0
        var notificationType = ""
        var notificationSigned = Instant.distantPast
        var subtype: String?
        if hasNotification {
            notificationMask = try reader.readVarint()
            try checkMask(notificationMask, bits: 6, group: "notification")
            notificationType = try reader.readString()
            notificationSigned = try reader.readInstant()
            if notificationMask & 1 << 0 != 0 { subtype = try reader.readString() }
        }
        var mask: UInt64 = 0
        var otid = ""
        var transactionId = ""
        var productId = ""
        var purchaseDate = Instant.distantPast
        var transactionSigned = Instant.distantPast
        var expiresDate: Instant?
        var type: String?
        var appAccountToken: String?
        var ownership: String?
        var revocationDate: Instant?
        var revocationType: String?
        if hasTransaction {
            mask = try reader.readVarint()
            try checkMask(mask, bits: 20, group: "transaction")
            otid = try reader.readString()
            transactionId = try reader.readString()
            productId = try reader.readString()
            purchaseDate = try reader.readInstant()
            transactionSigned = try reader.readInstant()
            if mask & 1 << 3 != 0 { expiresDate = try reader.readInstant() }
            if mask & 1 << 4 != 0 { type = try reader.readString() }
            if mask & 1 << 5 != 0 { appAccountToken = try reader.readString() }
            if mask & 1 << 6 != 0 { ownership = try reader.readString() }
            if mask & 1 << 7 != 0 { revocationDate = try reader.readInstant() }
            if mask & 1 << 9 != 0 { revocationType = try reader.readString() }
        }
        var renewalMask: UInt64 = 0
        var renewalOTID = ""
        var renewalSigned = Instant.distantPast
        var autoRenewProductId: String?
        var gracePeriodExpiresDate: Instant?
        var renewalDate: Instant?
        if hasRenewal {
            renewalMask = try checkedRenewalMask(try reader.readVarint())
            renewalOTID = try reader.readString()
            renewalSigned = try reader.readInstant()
            if renewalMask & 1 << 1 != 0 { autoRenewProductId = try reader.readString() }
            if renewalMask & 1 << 6 != 0 { gracePeriodExpiresDate = try reader.readInstant() }
            if renewalMask & 1 << 8 != 0 { renewalDate = try reader.readInstant() }
        }
        let last = try decodeLastParts(parts, &reader)
        // The others, and each value.
        var notification: NotificationFacts?
        if hasNotification {
            let uuid = try reader.readString()
            let status = notificationMask & 1 << 1 != 0 ? try reader.readInt32() : nil
            let bundleId = notificationMask & 1 << 2 != 0 ? try reader.readString() : nil
            let appAppleId = notificationMask & 1 << 3 != 0 ? try reader.readSigned() : nil
            let bundleVersion = notificationMask & 1 << 4 != 0 ? try reader.readString() : nil
            let consumptionRequestReason = notificationMask & 1 << 5 != 0 ? try reader.readString() : nil
            notification = NotificationFacts(
                type: notificationType, subtype: subtype, uuid: uuid, signedDate: notificationSigned, status: status,
                bundleId: bundleId, appAppleId: appAppleId, bundleVersion: bundleVersion,
                consumptionRequestReason: consumptionRequestReason)
        }
        var transaction: TransactionFacts?
        if hasTransaction {
            let webOrderLineItemId = mask & 1 << 0 != 0 ? try reader.readString() : nil
            let subscriptionGroupIdentifier = mask & 1 << 1 != 0 ? try reader.readString() : nil
            let originalPurchaseDate = mask & 1 << 2 != 0 ? try reader.readInstant() : nil
            let revocationReason = mask & 1 << 8 != 0 ? try reader.readInt32() : nil
            let revocationPercentage = mask & 1 << 10 != 0 ? try reader.readInt32() : nil
            let offer = try TransactionFacts.decodePriceAndOffer(mask, &reader)
            // The token was canonical when encoded: set it after the initialiser, which would re-check it.
            var facts = TransactionFacts(
                transactionId: transactionId, originalTransactionId: otid, webOrderLineItemId: webOrderLineItemId,
                productId: productId, subscriptionGroupIdentifier: subscriptionGroupIdentifier,
                purchaseDate: purchaseDate, originalPurchaseDate: originalPurchaseDate, expiresDate: expiresDate,
                type: type, appAccountToken: nil, inAppOwnershipType: ownership, revocationDate: revocationDate,
                revocationReason: revocationReason, revocationType: revocationType,
                revocationPercentage: revocationPercentage, isUpgraded: mask & 1 << 11 != 0, price: offer.price,
                currency: offer.currency, offerType: offer.offerType, offerIdentifier: offer.offerIdentifier,
                offerDiscountType: offer.offerDiscountType, transactionReason: offer.transactionReason,
                storefront: offer.storefront, quantity: offer.quantity, signedDate: transactionSigned)
            facts.appAccountToken = appAccountToken
            transaction = facts
        }
        var renewal: RenewalFacts?
        if hasRenewal {
            let renewalProductId = renewalMask & 1 << 0 != 0 ? try reader.readString() : nil
            let expirationIntent = renewalMask & 1 << 7 != 0 ? try reader.readInt32() : nil
            let recentSubscriptionStartDate = renewalMask & 1 << 9 != 0 ? try reader.readInstant() : nil
            let priceIncreaseStatus = renewalMask & 1 << 10 != 0 ? try reader.readInt32() : nil
            let renewalPrice = renewalMask & 1 << 11 != 0 ? try reader.readSigned() : nil
            let renewalCurrency = renewalMask & 1 << 12 != 0 ? try reader.readString() : nil
            renewal = RenewalFacts(
                originalTransactionId: renewalOTID, productId: renewalProductId,
                autoRenewProductId: autoRenewProductId,
                autoRenewStatus: renewalMask & 1 << 2 != 0 ? renewalMask & 1 << 3 != 0 : nil,
                isInBillingRetryPeriod: renewalMask & 1 << 4 != 0 ? renewalMask & 1 << 5 != 0 : nil,
                gracePeriodExpiresDate: gracePeriodExpiresDate, expirationIntent: expirationIntent,
                renewalDate: renewalDate, recentSubscriptionStartDate: recentSubscriptionStartDate,
                priceIncreaseStatus: priceIncreaseStatus, renewalPrice: renewalPrice, currency: renewalCurrency,
                signedDate: renewalSigned)
        }
        return (notification, transaction, renewal, last)
    }
}

/// A renewal mask, checked: no bit this version does not define, no value bit without its presence bit.
@inline(__always)
func checkedRenewalMask(_ mask: UInt64) throws(CoreError) -> UInt64 {
    try checkMask(mask, bits: 13, group: "renewal")
    guard mask & 0b1100 != 0b1000, mask & 0b11_0000 != 0b10_0000 else {
        throw CoreError(.malformed, "the renewal mask \(mask) sets a value bit without its presence bit")
    }
    return mask
}

extension TransactionFacts {
    /// The fields from price to quantity, last in both versions of the encoding.
    typealias PriceAndOffer = (
        price: Int64?, currency: String?, offerType: Int32?, offerIdentifier: String?, offerDiscountType: String?,
        transactionReason: String?, storefront: String?, quantity: Int32?
    )

    /// Reads the fields from price to quantity that `mask` says are there.
    @inline(__always)
    static func decodePriceAndOffer(_ mask: UInt64, _ reader: inout BinaryReader) throws(CoreError) -> PriceAndOffer {
        let price = mask & 1 << 12 != 0 ? try reader.readSigned() : nil
        let currency = mask & 1 << 13 != 0 ? try reader.readString() : nil
        let offerType = mask & 1 << 14 != 0 ? try reader.readInt32() : nil
        let offerIdentifier = mask & 1 << 15 != 0 ? try reader.readString() : nil
        let offerDiscountType = mask & 1 << 16 != 0 ? try reader.readString() : nil
        let transactionReason = mask & 1 << 17 != 0 ? try reader.readString() : nil
        let storefront = mask & 1 << 18 != 0 ? try reader.readString() : nil
        let quantity = mask & 1 << 19 != 0 ? try reader.readInt32() : nil
        return (
            price, currency, offerType, offerIdentifier, offerDiscountType, transactionReason, storefront, quantity
        )
    }
}
