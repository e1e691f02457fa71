/// # Version 1 of the binary encoding of a ledger record
///
/// The ledger wrote version 1 until it wrote version 2 (`LedgerRecord+Binary.swift`, where the primitives are
/// described); a log may hold both, and version 1 stays readable forever. The same fields as version 2, each
/// group's in the order of its mask bits:
///
/// ```text
/// record       = version:u8 (= 1)  parts:varint  environment:str  source:u8  idempotencyKey:str  subject
///                [notification] [transaction] [renewal] [evidence] [correction] [link]
/// subject, evidence, correction, link: as in version 2
/// notification = mask  type:str  uuid:str  signedDate:instant
///                [subtype:str] [status:signed] [bundleId:str] [appAppleId:signed] [bundleVersion:str]
///                [consumptionRequestReason:str]
/// transaction  = mask  originalTransactionId:str  transactionId:str  productId:str  purchaseDate:instant
///                signedDate:instant  then, when their bit is set and in this order:
///                webOrderLineItemId:str  subscriptionGroupIdentifier:str  originalPurchaseDate:instant
///                expiresDate:instant  type:str  appAccountToken:str  inAppOwnershipType:str
///                revocationDate:instant  revocationReason:signed  revocationType:str  revocationPercentage:signed
///                (bit 11 isUpgraded: no payload)  price:signed  currency:str  offerType:signed
///                offerIdentifier:str  offerDiscountType:str  transactionReason:str  storefront:str
///                quantity:signed
/// renewal      = mask  originalTransactionId:str  signedDate:instant  then, when set and in this order:
///                productId:str  autoRenewProductId:str  gracePeriodExpiresDate:instant
///                expirationIntent:signed  renewalDate:instant  recentSubscriptionStartDate:instant
///                priceIncreaseStatus:signed  renewalPrice:signed  currency:str
/// ```
///
/// The masks' bits are version 2's. The encoder is kept for the tests, which check that logs written in it still
/// read and fold alike.
extension LedgerRecord {
    /// The record in version 1 of the encoding (the layout above).
    func encodedVersion1() -> [UInt8] {
        var writer = BinaryWriter(capacity: 384)
        writer.writeByte(1)
        var (key, handles) = writeHead(into: &writer)
        if let notification { notification.encodeVersion1(into: &writer, key: key) }
        if let transaction { transaction.encodeVersion1(into: &writer, shared: &handles) }
        if let renewal { renewal.encodeVersion1(into: &writer, shared: handles) }
        writeLastParts(into: &writer)
        return writer.bytes
    }
}

extension NotificationFacts {
    func encodeVersion1(into writer: inout BinaryWriter, key: BinaryWriter.StringHandle) {
        writer.writeVarint(presenceMask)
        writer.writeString(type)
        writer.writeString(uuid, reusing: key)
        writer.writeInstant(signedDate)
        if let subtype { writer.writeString(subtype) }
        if let status { writer.writeSigned(Int64(status)) }
        if let bundleId { writer.writeString(bundleId) }
        if let appAppleId { writer.writeSigned(appAppleId) }
        if let bundleVersion { writer.writeString(bundleVersion) }
        if let consumptionRequestReason { writer.writeString(consumptionRequestReason) }
    }
}

extension TransactionFacts {
    func encodeVersion1(into writer: inout BinaryWriter, shared: inout SharedStrings) {
        encodeRequiredFields(into: &writer, shared: &shared)
        if let webOrderLineItemId { writer.writeString(webOrderLineItemId) }
        if let subscriptionGroupIdentifier { writer.writeString(subscriptionGroupIdentifier) }
        if let originalPurchaseDate { writer.writeInstant(originalPurchaseDate) }
        if let expiresDate { writer.writeInstant(expiresDate) }
        if let type { writer.writeString(type) }
        if let appAccountToken { shared.token = writer.writeString(appAccountToken, reusing: shared.token) }
        if let inAppOwnershipType { writer.writeString(inAppOwnershipType) }
        if let revocationDate { writer.writeInstant(revocationDate) }
        if let revocationReason { writer.writeSigned(Int64(revocationReason)) }
        if let revocationType { writer.writeString(revocationType) }
        if let revocationPercentage { writer.writeSigned(Int64(revocationPercentage)) }
        encodePriceAndOffer(into: &writer, shared: &shared)
    }
}

extension RenewalFacts {
    func encodeVersion1(into writer: inout BinaryWriter, shared: SharedStrings) {
        writer.writeVarint(presenceMask)
        writer.writeString(originalTransactionId, reusing: shared.otid)
        writer.writeInstant(signedDate)
        var product = shared.productId
        if let productId { product = writer.writeString(productId, reusing: product) }
        if let autoRenewProductId { writer.writeString(autoRenewProductId, reusing: product) }
        if let gracePeriodExpiresDate { writer.writeInstant(gracePeriodExpiresDate) }
        if let expirationIntent { writer.writeSigned(Int64(expirationIntent)) }
        if let renewalDate { writer.writeInstant(renewalDate) }
        if let recentSubscriptionStartDate { writer.writeInstant(recentSubscriptionStartDate) }
        if let priceIncreaseStatus { writer.writeSigned(Int64(priceIncreaseStatus)) }
        if let renewalPrice { writer.writeSigned(renewalPrice) }
        if let currency { writer.writeString(currency, reusing: shared.currency) }
    }
}

extension NotificationFacts {
    // Each decoder reads into locals and builds the value once: mutating a large struct after its
    // initialiser costs a full copy (every string retained and released) in optimised builds.
    static func decodeVersion1(_ reader: inout BinaryReader) throws(CoreError) -> NotificationFacts {
        let mask = try reader.readVarint()
        try checkMask(mask, bits: 6, group: "notification")
        let type = try reader.readString()
        let uuid = try reader.readString()
        let signedDate = try reader.readInstant()
        let subtype = mask & 1 << 0 != 0 ? try reader.readString() : nil
        let status = mask & 1 << 1 != 0 ? try reader.readInt32() : nil
        let bundleId = mask & 1 << 2 != 0 ? try reader.readString() : nil
        let appAppleId = mask & 1 << 3 != 0 ? try reader.readSigned() : nil
        let bundleVersion = mask & 1 << 4 != 0 ? try reader.readString() : nil
        let consumptionRequestReason = mask & 1 << 5 != 0 ? try reader.readString() : nil
        return NotificationFacts(
            type: type, subtype: subtype, uuid: uuid, signedDate: signedDate, status: status, bundleId: bundleId,
            appAppleId: appAppleId, bundleVersion: bundleVersion, consumptionRequestReason: consumptionRequestReason)
    }
}

extension TransactionFacts {
    static func decodeVersion1(_ reader: inout BinaryReader) throws(CoreError) -> TransactionFacts {
        let mask = try reader.readVarint()
        try checkMask(mask, bits: 20, group: "transaction")
        let otid = try reader.readString()
        let transactionId = try reader.readString()
        let productId = try reader.readString()
        let purchaseDate = try reader.readInstant()
        let signedDate = try reader.readInstant()
        let webOrderLineItemId = mask & 1 << 0 != 0 ? try reader.readString() : nil
        let subscriptionGroupIdentifier = mask & 1 << 1 != 0 ? try reader.readString() : nil
        let originalPurchaseDate = mask & 1 << 2 != 0 ? try reader.readInstant() : nil
        let expiresDate = mask & 1 << 3 != 0 ? try reader.readInstant() : nil
        let type = mask & 1 << 4 != 0 ? try reader.readString() : nil
        let appAccountToken = mask & 1 << 5 != 0 ? try reader.readString() : nil
        let inAppOwnershipType = mask & 1 << 6 != 0 ? try reader.readString() : nil
        let revocationDate = mask & 1 << 7 != 0 ? try reader.readInstant() : nil
        let revocationReason = mask & 1 << 8 != 0 ? try reader.readInt32() : nil
        let revocationType = mask & 1 << 9 != 0 ? try reader.readString() : nil
        let revocationPercentage = mask & 1 << 10 != 0 ? try reader.readInt32() : nil
        let offer = try decodePriceAndOffer(mask, &reader)
        // The token was canonical when encoded: set it after the initialiser, which would re-check it.
        var facts = TransactionFacts(
            transactionId: transactionId, originalTransactionId: otid, webOrderLineItemId: webOrderLineItemId,
            productId: productId, subscriptionGroupIdentifier: subscriptionGroupIdentifier,
            purchaseDate: purchaseDate, originalPurchaseDate: originalPurchaseDate, expiresDate: expiresDate,
            type: type, appAccountToken: nil, inAppOwnershipType: inAppOwnershipType,
            revocationDate: revocationDate, revocationReason: revocationReason, revocationType: revocationType,
            revocationPercentage: revocationPercentage, isUpgraded: mask & 1 << 11 != 0, price: offer.price,
            currency: offer.currency, offerType: offer.offerType, offerIdentifier: offer.offerIdentifier,
            offerDiscountType: offer.offerDiscountType, transactionReason: offer.transactionReason,
            storefront: offer.storefront, quantity: offer.quantity, signedDate: signedDate)
        facts.appAccountToken = appAccountToken
        return facts
    }
}

extension RenewalFacts {
    static func decodeVersion1(_ reader: inout BinaryReader) throws(CoreError) -> RenewalFacts {
        let mask = try checkedRenewalMask(try reader.readVarint())
        let otid = try reader.readString()
        let signedDate = try reader.readInstant()
        let productId = mask & 1 << 0 != 0 ? try reader.readString() : nil
        let autoRenewProductId = mask & 1 << 1 != 0 ? try reader.readString() : nil
        let gracePeriodExpiresDate = mask & 1 << 6 != 0 ? try reader.readInstant() : nil
        let expirationIntent = mask & 1 << 7 != 0 ? try reader.readInt32() : nil
        let renewalDate = mask & 1 << 8 != 0 ? try reader.readInstant() : nil
        let recentSubscriptionStartDate = mask & 1 << 9 != 0 ? try reader.readInstant() : nil
        let priceIncreaseStatus = mask & 1 << 10 != 0 ? try reader.readInt32() : nil
        let renewalPrice = mask & 1 << 11 != 0 ? try reader.readSigned() : nil
        let currency = mask & 1 << 12 != 0 ? try reader.readString() : nil
        return RenewalFacts(
            originalTransactionId: otid, productId: productId, autoRenewProductId: autoRenewProductId,
            autoRenewStatus: mask & 1 << 2 != 0 ? mask & 1 << 3 != 0 : nil,
            isInBillingRetryPeriod: mask & 1 << 4 != 0 ? mask & 1 << 5 != 0 : nil,
            gracePeriodExpiresDate: gracePeriodExpiresDate, expirationIntent: expirationIntent,
            renewalDate: renewalDate, recentSubscriptionStartDate: recentSubscriptionStartDate,
            priceIncreaseStatus: priceIncreaseStatus, renewalPrice: renewalPrice, currency: currency,
            signedDate: signedDate)
    }
}
