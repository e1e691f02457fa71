import LedgerCore

/// Plays one auto-renewable subscription through its life and returns, for each step, the ledger record
/// of the App Store Server Notification V2 Apple would send: type and subtype, the signed transaction
/// (a new one for purchases, renewals, upgrades and resubscribes; the same one re-signed otherwise), the
/// renewal info as of that moment, `signedDate` and `data.status`.
///
/// Every step takes `at`, the instant Apple signs the notification (and, for purchases and upgrades, the
/// purchase time). Identifiers are deterministic: the first transaction id is the original transaction id
/// and later ones count up from it; notification UUIDs derive from the original transaction id and a step
/// counter, so two scripts with different original transaction ids never collide.
public struct SubscriptionScript: Sendable {
    /// The subscription's original transaction id (numeric, as Apple's are).
    public let originalTransactionId: String
    /// The `appAccountToken` on every transaction, or nil for an orphan.
    public let appAccountToken: String?
    /// The App Store environment of every record.
    public let environment: LedgerEnvironment
    /// The catalog giving periods and prices.
    public let catalog: Catalog
    /// `PURCHASED`, or `FAMILY_SHARED` for access through Family Sharing.
    public let ownershipType: String

    /// The latest version of every transaction so far, by transaction id.
    public private(set) var transactions: [String: TransactionFacts] = [:]
    /// The transaction id of the current period.
    public private(set) var currentTransactionId: String?
    /// The renewal info as last signed.
    public private(set) var renewal: RenewalFacts?
    var steps = 0
    var transactionCount = 0

    /// Starts a script; `userId` gives the app's token scheme, `appAccountToken` any other token.
    public init(
        originalTransactionId: String, userId: Int64? = nil, appAccountToken: String? = nil,
        environment: LedgerEnvironment = .sandbox, catalog: Catalog = .visla, ownershipType: String = "PURCHASED"
    ) {
        self.originalTransactionId = originalTransactionId
        self.appAccountToken = appAccountToken ?? userId.flatMap(AccountToken.token(forUser:))
        self.environment = environment
        self.catalog = catalog
        self.ownershipType = ownershipType
    }

    /// The current period's transaction (its latest version).
    public var current: TransactionFacts? { currentTransactionId.flatMap { transactions[$0] } }

    // MARK: Building blocks

    /// A new transaction of `productId` starting at `start`, signed at `signed`.
    mutating func newTransaction(
        _ productId: String, start: Instant, signed: Instant, reason: String, expiresAfterDays: Int? = nil
    ) -> TransactionFacts {
        let base = Int64(originalTransactionId) ?? 1_000_000
        let id = transactionCount == 0 ? originalTransactionId : String(base + Int64(transactionCount))
        transactionCount += 1
        let product = catalog.product(id: productId)
        let expires =
            expiresAfterDays.map { start.adding(milliseconds: Int64($0) * 86_400_000) }
            ?? product.flatMap { start.adding($0.period) } ?? start.adding(milliseconds: 30 * 86_400_000)
        let transaction = TransactionFacts(
            transactionId: id, originalTransactionId: originalTransactionId,
            webOrderLineItemId: String(base &* 7 &+ Int64(transactionCount)), productId: productId,
            subscriptionGroupIdentifier: "21752814", purchaseDate: start,
            originalPurchaseDate: transactions[originalTransactionId]?.purchaseDate ?? start, expiresDate: expires,
            type: "Auto-Renewable Subscription", appAccountToken: appAccountToken, inAppOwnershipType: ownershipType,
            price: product?.price.milliunits, currency: product?.price.currency, transactionReason: reason,
            storefront: "DEU", quantity: 1, signedDate: signed)
        transactions[id] = transaction
        currentTransactionId = id
        return transaction
    }

    /// The latest version of a transaction re-signed at `signed`, after `change`.
    mutating func resign(
        _ transactionId: String? = nil, at signed: Instant, _ change: (inout TransactionFacts) -> Void = { _ in }
    ) -> TransactionFacts? {
        guard let id = transactionId ?? currentTransactionId, var transaction = transactions[id] else { return nil }
        change(&transaction)
        transaction.signedDate = signed
        transactions[id] = transaction
        return transaction
    }

    /// The renewal info re-signed at `signed`, after `change`.
    mutating func signRenewal(at signed: Instant, _ change: (inout RenewalFacts) -> Void = { _ in }) -> RenewalFacts {
        let product = current?.productId
        var info =
            renewal
            ?? RenewalFacts(
                originalTransactionId: originalTransactionId, productId: product, autoRenewProductId: product,
                autoRenewStatus: true, isInBillingRetryPeriod: false, signedDate: signed)
        info.productId = current?.productId ?? info.productId
        info.renewalDate = current?.expiresDate
        change(&info)
        if info.autoRenewStatus == true, let next = info.autoRenewProductId, let price = catalog.product(id: next) {
            info.renewalPrice = price.price.milliunits
            info.currency = price.price.currency
        } else {
            info.renewalPrice = nil  // Apple omits the renewal price while auto-renew is off.
            info.currency = nil
        }
        info.signedDate = signed
        renewal = info
        return info
    }

    /// The notification record for a step.
    mutating func notification(
        _ type: String, _ subtype: String? = nil, at signed: Instant, status: Int32?,
        transaction: TransactionFacts?, renewal: RenewalFacts?
    ) -> LedgerRecord {
        steps += 1
        let uuid = RecordBuilders.uuid(originalTransactionId, steps)
        return LedgerRecord(
            environment: environment, source: .notification, idempotencyKey: uuid,
            subject: Subject(originalTransactionId: originalTransactionId, appAccountToken: appAccountToken),
            notification: NotificationFacts(
                type: type, subtype: subtype, uuid: uuid, signedDate: signed, status: status,
                bundleId: "com.visla.gps", appAppleId: 1_234_567_890, bundleVersion: "637"),
            transaction: transaction, renewal: renewal, evidence: RecordBuilders.evidence(uuid))
    }
}

/// Helpers shared by the builders and the tests.
public enum RecordBuilders {
    /// Parses an ISO 8601 instant written in a test; traps on a typo.
    public static func instant(_ text: String) -> Instant {
        guard let instant = Instant(parsing: text) else { preconditionFailure("bad instant in test: \(text)") }
        return instant
    }

    /// A deterministic UUID-shaped string for a name and a counter.
    public static func uuid(_ name: String, _ counter: Int) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        let low = UInt64(truncatingIfNeeded: counter)
        return hex(hash >> 32, 8) + "-" + hex(hash >> 16 & 0xFFFF, 4) + "-4" + hex(hash & 0xFFF, 3) + "-8"
            + hex(low >> 48 & 0xFFF, 3) + "-" + hex(low & 0xFFFF_FFFF_FFFF, 12)
    }

    /// 32 evidence bytes derived from a key (stands in for the SHA-256 of the signed payload).
    public static func evidence(_ key: String) -> [UInt8] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for byte in key.utf8 { state = (state ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return (0..<32).map { index in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> (32 + UInt64(index % 8)))
        }
    }

    static func hex(_ value: UInt64, _ width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
