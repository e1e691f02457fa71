/// # The binary encoding of a ledger record (version 2)
///
/// The log stores each ``LedgerRecord`` as the bytes of ``LedgerRecord/encoded()``; ``LedgerRecord/init(decoding:)``
/// reads them back. Primitives (see ``BinaryWriter``): `u8` a raw byte; `varint` unsigned LEB128 (≤ 10 bytes);
/// `signed` zig-zag then varint; `str` a varint tag — even: a literal of `tag >> 1` UTF-8 bytes follows; odd: a
/// back-reference to the `(tag >> 1)`-th literal string of this record (strings are numbered in the order they
/// appear); `instant` milliseconds since the epoch, zig-zag — the record's first instant is absolute, every later
/// one is its difference from the first. A presence `mask` (a varint) opens each group of optional fields: bit
/// *i* set means field *i* of the group follows; absent fields cost nothing. Booleans live in the mask itself.
///
/// Version 2 holds the fields of version 1 (`LedgerRecord+BinaryVersion1.swift`, still read) in another order:
/// every field the entitlement fold reads comes first, each group's others after all of them, so that the fold's
/// decoder (``FoldRecords``) stops where its fields end instead of walking every field of the record. A group's
/// mask, at its head, says which of its fields follow in both places.
///
/// ```text
/// record       = version:u8 (= 2)  parts:varint  environment:str  source:u8  idempotencyKey:str  subject
///                [notification] [transaction] [renewal] [evidence] [correction] [link] [previous-owner] [void]
///                [catalog] [notification-rest] [transaction-rest] [renewal-rest]
///     parts bits: 0 notification, 1 transaction, 2 renewal, 3 evidence, 4 correction, 5 link,
///                6 previous-owner (the link's), 7 void, 8 catalog (`LedgerRecord+BinaryCatalog.swift`)
/// subject      = mask  [originalTransactionId:str] [appAccountToken:str] [userId:signed]
///     mask bits: 0 originalTransactionId, 1 appAccountToken, 2 userId
/// notification = mask  type:str  signedDate:instant  [subtype:str]
/// notification-rest = uuid:str  [status:signed] [bundleId:str] [appAppleId:signed] [bundleVersion:str]
///                [consumptionRequestReason:str]
///     mask bits: 0 subtype, 1 status, 2 bundleId, 3 appAppleId, 4 bundleVersion, 5 consumptionRequestReason
/// transaction  = mask  originalTransactionId:str  transactionId:str  productId:str  purchaseDate:instant
///                signedDate:instant  [expiresDate:instant] [type:str] [appAccountToken:str]
///                [inAppOwnershipType:str] [revocationDate:instant] [revocationType:str]
/// transaction-rest = [webOrderLineItemId:str] [subscriptionGroupIdentifier:str] [originalPurchaseDate:instant]
///                [revocationReason:signed] [revocationPercentage:signed] [price:signed] [currency:str]
///                [offerType:signed] [offerIdentifier:str] [offerDiscountType:str] [transactionReason:str]
///                [storefront:str] [quantity:signed]
///     mask bits: 0 webOrderLineItemId, 1 subscriptionGroupIdentifier, 2 originalPurchaseDate, 3 expiresDate,
///                4 type, 5 appAccountToken, 6 inAppOwnershipType, 7 revocationDate, 8 revocationReason,
///                9 revocationType, 10 revocationPercentage, 11 isUpgraded (its value: no field), 12 price,
///                13 currency, 14 offerType, 15 offerIdentifier, 16 offerDiscountType, 17 transactionReason,
///                18 storefront, 19 quantity
/// renewal      = mask  originalTransactionId:str  signedDate:instant  [autoRenewProductId:str]
///                [gracePeriodExpiresDate:instant] [renewalDate:instant]
/// renewal-rest = [productId:str] [expirationIntent:signed] [recentSubscriptionStartDate:instant]
///                [priceIncreaseStatus:signed] [renewalPrice:signed] [currency:str]
///     mask bits: 0 productId, 1 autoRenewProductId, 2 autoRenewStatus present, 3 its value,
///                4 isInBillingRetryPeriod present, 5 its value, 6 gracePeriodExpiresDate, 7 expirationIntent,
///                8 renewalDate, 9 recentSubscriptionStartDate, 10 priceIncreaseStatus, 11 renewalPrice,
///                12 currency
/// evidence     = length:varint (≤ 64)  bytes
/// correction   = action:u8  (0 grant: productId:str from:instant until:instant | 1 revoke: from:instant)
///                reason:str  operator:str
/// link         = reason:str  operator:str
/// previous-owner = mask  [appAccountToken:str] [userId:signed]
///     mask bits: 0 appAccountToken, 1 userId (who owned the subscription before a reassigning link)
/// void         = seq:varint  reason:str  operator:str
/// ```
///
/// Parts bits 6, 7 and 8 came later than the others (without a new version byte: a record without them is
/// encoded as before, so every record written earlier reads as it did); a build that predates them refuses a
/// record that sets them as malformed.
///
/// Decoding is strict: an unknown mask bit or action, an `Int32` field out of range, invalid UTF-8, a
/// back-reference to a string not yet seen, or bytes left over after the record are ``CoreError/Code/malformed``;
/// running out of bytes is ``CoreError/Code/truncated``; a version above ``LedgerRecord/currentVersion`` is
/// ``CoreError/Code/unsupportedVersion``. A later version adds fields behind new mask bits and a new version
/// byte; every earlier version stays readable.
extension LedgerRecord {
    /// The largest evidence digest accepted (SHA-256 needs 32 bytes).
    static let maxEvidenceLength = 64

    /// ``encoded()``, checked to read back: the ledger never appends a record it could not read again. The
    /// encoder writes whatever a record holds; the decoder bounds every length, so a record built from oversized
    /// input (a 70 KB product id) is refused here instead of becoming a record no read can get past.
    ///
    /// A record's typed fields leave the decoder only two refusals to make of what the encoder writes: a string
    /// over ``BinaryReader/maxStringLength`` bytes and evidence over ``maxEvidenceLength``; those are checked
    /// here, where decoding the record back cost 4% of verified ingest (`Scripts/bench`, ingest rows). Debug builds
    /// (the tests) still decode every record back and stop if it does not read, so a rule the decoder gains is
    /// caught.
    ///
    /// - Throws: ``CoreError`` `limitExceeded`, naming what does not fit.
    public func storableEncoding() throws(CoreError) -> [UInt8] {
        var writer = BinaryWriter(capacity: 384)
        encode(into: &writer)
        guard writer.longestString <= BinaryReader.maxStringLength else {
            throw CoreError(
                .limitExceeded,
                "the record cannot be stored: a string of \(writer.longestString) bytes is over the"
                    + " \(BinaryReader.maxStringLength)-byte limit")
        }
        if let evidence, evidence.count > Self.maxEvidenceLength {
            throw CoreError(
                .limitExceeded,
                "the record cannot be stored: an evidence digest of \(evidence.count) bytes is over the"
                    + " \(Self.maxEvidenceLength)-byte limit")
        }
        let bytes = writer.bytes
        assert(
            (try? LedgerRecord(decoding: bytes)) != nil,
            "a record whose encoding does not decode passed the storability checks")
        return bytes
    }

    /// The record in the ledger's compact binary encoding (the layout is documented above).
    public func encoded() -> [UInt8] {
        var writer = BinaryWriter(capacity: 384)
        encode(into: &writer)
        return writer.bytes
    }

    /// Appends the record's encoding to a writer that has written nothing else.
    public func encode(into writer: inout BinaryWriter) {
        writer.writeByte(Self.currentVersion)
        var (key, handles) = writeHead(into: &writer)
        // The fold's fields, then the rest (see the layout above).
        if let notification { notification.encodeFoldFields(into: &writer) }
        if let transaction { transaction.encodeFoldFields(into: &writer, shared: &handles) }
        if let renewal { renewal.encodeFoldFields(into: &writer, shared: &handles) }
        writeLastParts(into: &writer)
        if let notification { notification.encodeOtherFields(into: &writer, key: key) }
        if let transaction { transaction.encodeOtherFields(into: &writer, shared: &handles) }
        if let renewal { renewal.encodeOtherFields(into: &writer, shared: handles) }
    }

    /// Writes what follows the version byte up to the notification, in both versions: the parts, environment,
    /// source, idempotency key and subject. Returns the key's and the subject's literals, for later strings to
    /// reuse.
    func writeHead(into writer: inout BinaryWriter) -> (key: BinaryWriter.StringHandle, shared: SharedStrings) {
        var parts: UInt64 = 0
        if notification != nil { parts |= 1 << 0 }
        if transaction != nil { parts |= 1 << 1 }
        if renewal != nil { parts |= 1 << 2 }
        if evidence != nil { parts |= 1 << 3 }
        if correction != nil { parts |= 1 << 4 }
        if link != nil { parts |= 1 << 5 }
        if link?.previousOwner != nil { parts |= 1 << 6 }
        if void != nil { parts |= 1 << 7 }
        if catalog != nil { parts |= 1 << 8 }
        writer.writeVarint(parts)
        writer.writeString(environment.rawValue)
        writer.writeByte(source.rawValue)
        let key = writer.writeString(idempotencyKey)

        var mask: UInt64 = 0
        if subject.originalTransactionId != nil { mask |= 1 << 0 }
        if subject.appAccountToken != nil { mask |= 1 << 1 }
        if subject.userId != nil { mask |= 1 << 2 }
        writer.writeVarint(mask)
        let subjectOTID = subject.originalTransactionId.map { writer.writeString($0) }
        let subjectToken = subject.appAccountToken.map { writer.writeString($0) }
        if let userId = subject.userId { writer.writeSigned(userId) }
        return (key, SharedStrings(otid: subjectOTID, token: subjectToken))
    }

    /// Writes the evidence, correction, link, previous-owner, void and catalog parts, in both versions.
    func writeLastParts(into writer: inout BinaryWriter) {
        if let evidence { writer.writeBytes(evidence) }
        if let correction {
            switch correction.action {
            case .grant(let productId, let from, let until):
                writer.writeByte(0)
                writer.writeString(productId)
                writer.writeInstant(from)
                writer.writeInstant(until)
            case .revoke(let from):
                writer.writeByte(1)
                writer.writeInstant(from)
            }
            writer.writeString(correction.reason)
            writer.writeString(correction.operatorName)
        }
        if let link {
            writer.writeString(link.reason)
            writer.writeString(link.operatorName)
            if let owner = link.previousOwner {
                var mask: UInt64 = 0
                if owner.appAccountToken != nil { mask |= 1 << 0 }
                if owner.userId != nil { mask |= 1 << 1 }
                writer.writeVarint(mask)
                if let token = owner.appAccountToken { writer.writeString(token) }
                if let userId = owner.userId { writer.writeSigned(userId) }
            }
        }
        if let void {
            writer.writeVarint(void.seq)
            writer.writeString(void.reason)
            writer.writeString(void.operatorName)
        }
        if let catalog { catalog.encode(into: &writer) }
    }
}

/// Literal strings a later group of the same record is likely to repeat.
struct SharedStrings {
    var otid: BinaryWriter.StringHandle?
    var token: BinaryWriter.StringHandle?
    var productId: BinaryWriter.StringHandle?
    /// The renewal's autoRenewProductId, which its productId most often repeats.
    var renewalProductId: BinaryWriter.StringHandle?
    var currency: BinaryWriter.StringHandle?
}

extension NotificationFacts {
    /// Which optional fields it holds (the same bits in both versions).
    var presenceMask: UInt64 {
        var mask: UInt64 = 0
        if subtype != nil { mask |= 1 << 0 }
        if status != nil { mask |= 1 << 1 }
        if bundleId != nil { mask |= 1 << 2 }
        if appAppleId != nil { mask |= 1 << 3 }
        if bundleVersion != nil { mask |= 1 << 4 }
        if consumptionRequestReason != nil { mask |= 1 << 5 }
        return mask
    }

    func encodeFoldFields(into writer: inout BinaryWriter) {
        writer.writeVarint(presenceMask)
        writer.writeString(type)
        writer.writeInstant(signedDate)
        if let subtype { writer.writeString(subtype) }
    }

    func encodeOtherFields(into writer: inout BinaryWriter, key: BinaryWriter.StringHandle) {
        writer.writeString(uuid, reusing: key)
        if let status { writer.writeSigned(Int64(status)) }
        if let bundleId { writer.writeString(bundleId) }
        if let appAppleId { writer.writeSigned(appAppleId) }
        if let bundleVersion { writer.writeString(bundleVersion) }
        if let consumptionRequestReason { writer.writeString(consumptionRequestReason) }
    }
}

extension TransactionFacts {
    /// Which optional fields it holds, and isUpgraded (the same bits in both versions).
    var presenceMask: UInt64 {
        var mask: UInt64 = 0
        if webOrderLineItemId != nil { mask |= 1 << 0 }
        if subscriptionGroupIdentifier != nil { mask |= 1 << 1 }
        if originalPurchaseDate != nil { mask |= 1 << 2 }
        if expiresDate != nil { mask |= 1 << 3 }
        if type != nil { mask |= 1 << 4 }
        if appAccountToken != nil { mask |= 1 << 5 }
        if inAppOwnershipType != nil { mask |= 1 << 6 }
        if revocationDate != nil { mask |= 1 << 7 }
        if revocationReason != nil { mask |= 1 << 8 }
        if revocationType != nil { mask |= 1 << 9 }
        if revocationPercentage != nil { mask |= 1 << 10 }
        if isUpgraded { mask |= 1 << 11 }
        if price != nil { mask |= 1 << 12 }
        if currency != nil { mask |= 1 << 13 }
        if offerType != nil { mask |= 1 << 14 }
        if offerIdentifier != nil { mask |= 1 << 15 }
        if offerDiscountType != nil { mask |= 1 << 16 }
        if transactionReason != nil { mask |= 1 << 17 }
        if storefront != nil { mask |= 1 << 18 }
        if quantity != nil { mask |= 1 << 19 }
        return mask
    }

    /// Writes the mask and the fields every transaction has, first in both versions of the encoding.
    func encodeRequiredFields(into writer: inout BinaryWriter, shared: inout SharedStrings) {
        writer.writeVarint(presenceMask)
        let otid = writer.writeString(originalTransactionId, reusing: shared.otid)
        shared.otid = otid
        writer.writeString(transactionId, reusing: otid)
        shared.productId = writer.writeString(productId)
        writer.writeInstant(purchaseDate)
        writer.writeInstant(signedDate)
    }

    func encodeFoldFields(into writer: inout BinaryWriter, shared: inout SharedStrings) {
        encodeRequiredFields(into: &writer, shared: &shared)
        if let expiresDate { writer.writeInstant(expiresDate) }
        if let type { writer.writeString(type) }
        if let appAccountToken { shared.token = writer.writeString(appAccountToken, reusing: shared.token) }
        if let inAppOwnershipType { writer.writeString(inAppOwnershipType) }
        if let revocationDate { writer.writeInstant(revocationDate) }
        if let revocationType { writer.writeString(revocationType) }
    }

    func encodeOtherFields(into writer: inout BinaryWriter, shared: inout SharedStrings) {
        if let webOrderLineItemId { writer.writeString(webOrderLineItemId) }
        if let subscriptionGroupIdentifier { writer.writeString(subscriptionGroupIdentifier) }
        if let originalPurchaseDate { writer.writeInstant(originalPurchaseDate) }
        if let revocationReason { writer.writeSigned(Int64(revocationReason)) }
        if let revocationPercentage { writer.writeSigned(Int64(revocationPercentage)) }
        encodePriceAndOffer(into: &writer, shared: &shared)
    }

    /// Writes the fields from price to quantity, last in both versions of the encoding.
    func encodePriceAndOffer(into writer: inout BinaryWriter, shared: inout SharedStrings) {
        if let price { writer.writeSigned(price) }
        if let currency { shared.currency = writer.writeString(currency) }
        if let offerType { writer.writeSigned(Int64(offerType)) }
        if let offerIdentifier { writer.writeString(offerIdentifier) }
        if let offerDiscountType { writer.writeString(offerDiscountType) }
        if let transactionReason { writer.writeString(transactionReason) }
        if let storefront { writer.writeString(storefront) }
        if let quantity { writer.writeSigned(Int64(quantity)) }
    }
}

extension RenewalFacts {
    /// Which optional fields it holds, with autoRenewStatus and isInBillingRetryPeriod (the same bits in both
    /// versions).
    var presenceMask: UInt64 {
        var mask: UInt64 = 0
        if productId != nil { mask |= 1 << 0 }
        if autoRenewProductId != nil { mask |= 1 << 1 }
        if let autoRenewStatus { mask |= 1 << 2 | (autoRenewStatus ? 1 << 3 : 0) }
        if let isInBillingRetryPeriod { mask |= 1 << 4 | (isInBillingRetryPeriod ? 1 << 5 : 0) }
        if gracePeriodExpiresDate != nil { mask |= 1 << 6 }
        if expirationIntent != nil { mask |= 1 << 7 }
        if renewalDate != nil { mask |= 1 << 8 }
        if recentSubscriptionStartDate != nil { mask |= 1 << 9 }
        if priceIncreaseStatus != nil { mask |= 1 << 10 }
        if renewalPrice != nil { mask |= 1 << 11 }
        if currency != nil { mask |= 1 << 12 }
        return mask
    }

    func encodeFoldFields(into writer: inout BinaryWriter, shared: inout SharedStrings) {
        writer.writeVarint(presenceMask)
        writer.writeString(originalTransactionId, reusing: shared.otid)
        writer.writeInstant(signedDate)
        if let autoRenewProductId {
            shared.renewalProductId = writer.writeString(autoRenewProductId, reusing: shared.productId)
        }
        if let gracePeriodExpiresDate { writer.writeInstant(gracePeriodExpiresDate) }
        if let renewalDate { writer.writeInstant(renewalDate) }
    }

    func encodeOtherFields(into writer: inout BinaryWriter, shared: SharedStrings) {
        if let productId {
            let earlier = shared.renewalProductId?.value == productId ? shared.renewalProductId : shared.productId
            writer.writeString(productId, reusing: earlier)
        }
        if let expirationIntent { writer.writeSigned(Int64(expirationIntent)) }
        if let recentSubscriptionStartDate { writer.writeInstant(recentSubscriptionStartDate) }
        if let priceIncreaseStatus { writer.writeSigned(Int64(priceIncreaseStatus)) }
        if let renewalPrice { writer.writeSigned(renewalPrice) }
        if let currency { writer.writeString(currency, reusing: shared.currency) }
    }
}
