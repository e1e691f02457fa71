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
        try checkMask(parts, bits: 6, group: "record parts")
        let environment = LedgerEnvironment(rawValue: try reader.readString())
        let source = RecordSource(rawValue: try reader.readByte())
        let key = try reader.readString()

        let mask = try reader.readVarint()
        try checkMask(mask, bits: 3, group: "subject")
        var subject = Subject()
        if mask & 1 << 0 != 0 { subject.originalTransactionId = try reader.readString() }
        if mask & 1 << 1 != 0 { subject.appAccountToken = try reader.readString() }
        if mask & 1 << 2 != 0 { subject.userId = try reader.readSigned() }

        var notification: NotificationFacts?
        var transaction: TransactionFacts?
        var renewal: RenewalFacts?
        var notificationFields: NotificationFacts.FoldFields?
        var transactionFields: TransactionFacts.FoldFields?
        var renewalFields: RenewalFacts.FoldFields?
        if version == 1 {
            if parts & 1 << 0 != 0 { notification = try NotificationFacts.decodeVersion1(&reader) }
            if parts & 1 << 1 != 0 { transaction = try TransactionFacts.decodeVersion1(&reader) }
            if parts & 1 << 2 != 0 { renewal = try RenewalFacts.decodeVersion1(&reader) }
        } else {
            if parts & 1 << 0 != 0 { notificationFields = try NotificationFacts.FoldFields(&reader) }
            if parts & 1 << 1 != 0 { transactionFields = try TransactionFacts.FoldFields(&reader) }
            if parts & 1 << 2 != 0 { renewalFields = try RenewalFacts.FoldFields(&reader) }
        }
        let evidence = parts & 1 << 3 != 0 ? try reader.readBytes(maxLength: maxEvidenceLength) : nil
        let correction = parts & 1 << 4 != 0 ? try decodeCorrection(&reader) : nil
        let link =
            parts & 1 << 5 != 0 ? Link(reason: try reader.readString(), operatorName: try reader.readString()) : nil
        if let notificationFields { notification = try NotificationFacts(notificationFields, otherFields: &reader) }
        if let transactionFields { transaction = try TransactionFacts(transactionFields, otherFields: &reader) }
        if let renewalFields { renewal = try RenewalFacts(renewalFields, otherFields: &reader) }
        return LedgerRecord(
            environment: environment, source: source, idempotencyKey: key, subject: subject,
            notification: notification, transaction: transaction, renewal: renewal, evidence: evidence,
            correction: correction, link: link)
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

// Version 2's groups: each decoder reads the group's fold fields into locals (its mask first), and builds the value
// once its other fields are read after every group's fold fields (a large struct mutated after its initialiser
// costs a full copy, every string retained and released, in optimised builds).

extension NotificationFacts {
    /// The fold's fields of a notification, as version 2 puts them first.
    struct FoldFields {
        let mask: UInt64
        let type: String
        let signedDate: Instant
        let subtype: String?

        init(_ reader: inout BinaryReader) throws(CoreError) {
            mask = try reader.readVarint()
            try checkMask(mask, bits: 6, group: "notification")
            type = try reader.readString()
            signedDate = try reader.readInstant()
            subtype = mask & 1 << 0 != 0 ? try reader.readString() : nil
        }
    }

    /// The notification of `fields`, its other fields read from `reader`.
    init(_ fields: FoldFields, otherFields reader: inout BinaryReader) throws(CoreError) {
        let mask = fields.mask
        let uuid = try reader.readString()
        let status = mask & 1 << 1 != 0 ? try reader.readInt32() : nil
        let bundleId = mask & 1 << 2 != 0 ? try reader.readString() : nil
        let appAppleId = mask & 1 << 3 != 0 ? try reader.readSigned() : nil
        let bundleVersion = mask & 1 << 4 != 0 ? try reader.readString() : nil
        let consumptionRequestReason = mask & 1 << 5 != 0 ? try reader.readString() : nil
        self.init(
            type: fields.type, subtype: fields.subtype, uuid: uuid, signedDate: fields.signedDate, status: status,
            bundleId: bundleId, appAppleId: appAppleId, bundleVersion: bundleVersion,
            consumptionRequestReason: consumptionRequestReason)
    }
}

extension TransactionFacts {
    /// The fold's fields of a transaction, as version 2 puts them first.
    struct FoldFields {
        let mask: UInt64
        let otid: String
        let transactionId: String
        let productId: String
        let purchaseDate: Instant
        let signedDate: Instant
        let expiresDate: Instant?
        let type: String?
        let appAccountToken: String?
        let inAppOwnershipType: String?
        let revocationDate: Instant?
        let revocationType: String?

        init(_ reader: inout BinaryReader) throws(CoreError) {
            mask = try reader.readVarint()
            try checkMask(mask, bits: 20, group: "transaction")
            otid = try reader.readString()
            transactionId = try reader.readString()
            productId = try reader.readString()
            purchaseDate = try reader.readInstant()
            signedDate = try reader.readInstant()
            expiresDate = mask & 1 << 3 != 0 ? try reader.readInstant() : nil
            type = mask & 1 << 4 != 0 ? try reader.readString() : nil
            appAccountToken = mask & 1 << 5 != 0 ? try reader.readString() : nil
            inAppOwnershipType = mask & 1 << 6 != 0 ? try reader.readString() : nil
            revocationDate = mask & 1 << 7 != 0 ? try reader.readInstant() : nil
            revocationType = mask & 1 << 9 != 0 ? try reader.readString() : nil
        }
    }

    /// The transaction of `fields`, its other fields read from `reader`.
    init(_ fields: FoldFields, otherFields reader: inout BinaryReader) throws(CoreError) {
        let mask = fields.mask
        let webOrderLineItemId = mask & 1 << 0 != 0 ? try reader.readString() : nil
        let subscriptionGroupIdentifier = mask & 1 << 1 != 0 ? try reader.readString() : nil
        let originalPurchaseDate = mask & 1 << 2 != 0 ? try reader.readInstant() : nil
        let revocationReason = mask & 1 << 8 != 0 ? try reader.readInt32() : nil
        let revocationPercentage = mask & 1 << 10 != 0 ? try reader.readInt32() : nil
        let price = mask & 1 << 12 != 0 ? try reader.readSigned() : nil
        let currency = mask & 1 << 13 != 0 ? try reader.readString() : nil
        let offerType = mask & 1 << 14 != 0 ? try reader.readInt32() : nil
        let offerIdentifier = mask & 1 << 15 != 0 ? try reader.readString() : nil
        let offerDiscountType = mask & 1 << 16 != 0 ? try reader.readString() : nil
        let transactionReason = mask & 1 << 17 != 0 ? try reader.readString() : nil
        let storefront = mask & 1 << 18 != 0 ? try reader.readString() : nil
        let quantity = mask & 1 << 19 != 0 ? try reader.readInt32() : nil
        // The token was canonical when encoded: set it after the initialiser, which would re-check it.
        self.init(
            transactionId: fields.transactionId, originalTransactionId: fields.otid,
            webOrderLineItemId: webOrderLineItemId, productId: fields.productId,
            subscriptionGroupIdentifier: subscriptionGroupIdentifier, purchaseDate: fields.purchaseDate,
            originalPurchaseDate: originalPurchaseDate, expiresDate: fields.expiresDate, type: fields.type,
            appAccountToken: nil, inAppOwnershipType: fields.inAppOwnershipType,
            revocationDate: fields.revocationDate, revocationReason: revocationReason,
            revocationType: fields.revocationType, revocationPercentage: revocationPercentage,
            isUpgraded: mask & 1 << 11 != 0, price: price, currency: currency, offerType: offerType,
            offerIdentifier: offerIdentifier, offerDiscountType: offerDiscountType,
            transactionReason: transactionReason, storefront: storefront, quantity: quantity,
            signedDate: fields.signedDate)
        appAccountToken = fields.appAccountToken
    }
}

extension RenewalFacts {
    /// The fold's fields of renewal info, as version 2 puts them first.
    struct FoldFields {
        let mask: UInt64
        let otid: String
        let signedDate: Instant
        let autoRenewProductId: String?
        let gracePeriodExpiresDate: Instant?
        let renewalDate: Instant?

        init(_ reader: inout BinaryReader) throws(CoreError) {
            mask = try checkedRenewalMask(try reader.readVarint())
            otid = try reader.readString()
            signedDate = try reader.readInstant()
            autoRenewProductId = mask & 1 << 1 != 0 ? try reader.readString() : nil
            gracePeriodExpiresDate = mask & 1 << 6 != 0 ? try reader.readInstant() : nil
            renewalDate = mask & 1 << 8 != 0 ? try reader.readInstant() : nil
        }
    }

    /// The renewal info of `fields`, its other fields read from `reader`.
    init(_ fields: FoldFields, otherFields reader: inout BinaryReader) throws(CoreError) {
        let mask = fields.mask
        let productId = mask & 1 << 0 != 0 ? try reader.readString() : nil
        let expirationIntent = mask & 1 << 7 != 0 ? try reader.readInt32() : nil
        let recentSubscriptionStartDate = mask & 1 << 9 != 0 ? try reader.readInstant() : nil
        let priceIncreaseStatus = mask & 1 << 10 != 0 ? try reader.readInt32() : nil
        let renewalPrice = mask & 1 << 11 != 0 ? try reader.readSigned() : nil
        let currency = mask & 1 << 12 != 0 ? try reader.readString() : nil
        self.init(
            originalTransactionId: fields.otid, productId: productId, autoRenewProductId: fields.autoRenewProductId,
            autoRenewStatus: mask & 1 << 2 != 0 ? mask & 1 << 3 != 0 : nil,
            isInBillingRetryPeriod: mask & 1 << 4 != 0 ? mask & 1 << 5 != 0 : nil,
            gracePeriodExpiresDate: fields.gracePeriodExpiresDate, expirationIntent: expirationIntent,
            renewalDate: fields.renewalDate, recentSubscriptionStartDate: recentSubscriptionStartDate,
            priceIncreaseStatus: priceIncreaseStatus, renewalPrice: renewalPrice, currency: currency,
            signedDate: fields.signedDate)
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
