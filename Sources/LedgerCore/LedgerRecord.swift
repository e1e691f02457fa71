/// Where a ledger record came from.
public struct RecordSource: Hashable, Sendable, CustomStringConvertible {
    /// The stable wire value.
    public var rawValue: UInt8
    /// Wraps a wire value (unknown values are kept).
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// An App Store Server Notification V2, verified.
    public static let notification = RecordSource(rawValue: 1)
    /// A signed transaction from the App Store Server API (Get Transaction History), verified.
    public static let transactionHistory = RecordSource(rawValue: 2)
    /// Signed transaction and renewal info from Get All Subscription Statuses, verified.
    public static let subscriptionStatus = RecordSource(rawValue: 3)
    /// A legacy `verifyReceipt` response: unsigned, marked as such.
    public static let legacyReceipt = RecordSource(rawValue: 4)
    /// An operator's correction.
    public static let correction = RecordSource(rawValue: 5)
    /// An operator's link of an orphan subscription to a user.
    public static let link = RecordSource(rawValue: 6)
    /// An operator's void of an earlier record.
    public static let void = RecordSource(rawValue: 7)
    /// An operator's version of the product catalog (the built-in one at a log's first write).
    public static let catalog = RecordSource(rawValue: 8)

    /// A short name: `notification`, `transactionHistory`, `subscriptionStatus`, `legacyReceipt`,
    /// `correction`, `link`, `void`, `catalog`, or `source-N`.
    public var description: String {
        switch self {
        case .notification: return "notification"
        case .transactionHistory: return "transactionHistory"
        case .subscriptionStatus: return "subscriptionStatus"
        case .legacyReceipt: return "legacyReceipt"
        case .correction: return "correction"
        case .link: return "link"
        case .void: return "void"
        case .catalog: return "catalog"
        default: return "source-\(rawValue)"
        }
    }
}

/// Who a record is about. Any part may be missing: a notification without `appAccountToken` is an
/// orphan known only by its original transaction id.
public struct Subject: Hashable, Sendable {
    /// The subscription's original transaction id: constant across renewals and plan changes.
    public var originalTransactionId: Optional<String>
    /// The canonical (lower-case) `appAccountToken`, when the purchase carried one.
    public var appAccountToken: Optional<String>
    /// The Visla user id the token encodes, when it follows the app's scheme.
    public var userId: Optional<Int64>

    /// Creates a subject; the user id is derived from the token when not given.
    public init(originalTransactionId: String? = nil, appAccountToken: String? = nil, userId: Int64? = nil) {
        self.originalTransactionId = originalTransactionId
        let token = appAccountToken.map { AccountToken.canonical($0) ?? $0 }
        self.appAccountToken = token
        self.userId = userId ?? token.flatMap(AccountToken.userId(fromToken:))
    }
}

/// The notification envelope facts of an App Store Server Notification V2.
public struct NotificationFacts: Hashable, Sendable {
    /// `notificationType`, raw (unknown values kept).
    public var type: String
    /// `subtype`, raw, when present.
    public var subtype: Optional<String>
    /// `notificationUUID`: the idempotency key of notifications.
    public var uuid: String
    /// When the App Store signed the notification.
    public var signedDate: Instant
    /// `data.status` (1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked), when present.
    public var status: Optional<Int32>
    /// `data.bundleId` (or the summary's), when present.
    public var bundleId: Optional<String>
    /// `data.appAppleId`, when present.
    public var appAppleId: Optional<Int64>
    /// `data.bundleVersion`, when present.
    public var bundleVersion: Optional<String>
    /// `data.consumptionRequestReason`, when present.
    public var consumptionRequestReason: Optional<String>

    /// Creates notification facts.
    public init(
        type: String, subtype: String? = nil, uuid: String, signedDate: Instant, status: Int32? = nil,
        bundleId: String? = nil, appAppleId: Int64? = nil, bundleVersion: String? = nil,
        consumptionRequestReason: String? = nil
    ) {
        self.type = type
        self.subtype = subtype
        self.uuid = uuid
        self.signedDate = signedDate
        self.status = status
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.bundleVersion = bundleVersion
        self.consumptionRequestReason = consumptionRequestReason
    }
}

/// The normalised form of everything the log holds, whatever its source: an App Store notification,
/// an imported transaction or subscription status, a legacy receipt, an operator correction, link or void, a
/// catalog version.
///
/// Records are immutable facts. The entitlement fold derives every projection from them.
public struct LedgerRecord: Hashable, Sendable {
    /// The encoding version this record was written with; old versions stay readable forever.
    public static let currentVersion: UInt8 = 2

    /// The App Store environment the record belongs to.
    public var environment: LedgerEnvironment
    /// Where the record came from.
    public var source: RecordSource
    /// Duplicates share it: the `notificationUUID` for notifications, a content key otherwise.
    public var idempotencyKey: String
    /// Who the record is about.
    public var subject: Subject
    /// The notification envelope, for notification records.
    public var notification: Optional<NotificationFacts>
    /// The signed transaction, when the source carried one.
    public var transaction: Optional<TransactionFacts>
    /// The signed renewal info, when the source carried one.
    public var renewal: Optional<RenewalFacts>
    /// SHA-256 of the raw signed payload this record was derived from (32 bytes), kept as evidence.
    public var evidence: Optional<[UInt8]>
    /// The correction, for correction records.
    public var correction: Optional<Correction>
    /// The link, for link records.
    public var link: Optional<Link>
    /// The void, for void records.
    public var void: Optional<Voiding>
    /// The catalog version, for catalog records.
    public var catalog: Optional<CatalogVersion>

    /// Creates a record.
    public init(
        environment: LedgerEnvironment, source: RecordSource, idempotencyKey: String, subject: Subject,
        notification: NotificationFacts? = nil, transaction: TransactionFacts? = nil, renewal: RenewalFacts? = nil,
        evidence: [UInt8]? = nil, correction: Correction? = nil, link: Link? = nil, void: Voiding? = nil,
        catalog: CatalogVersion? = nil
    ) {
        self.environment = environment
        self.source = source
        self.idempotencyKey = idempotencyKey
        self.subject = subject
        self.notification = notification
        self.transaction = transaction
        self.renewal = renewal
        self.evidence = evidence
        self.correction = correction
        self.link = link
        self.void = void
        self.catalog = catalog
    }
}

/// A record as the log holds it: with its gap-free sequence number and the time the ledger appended it.
public struct LedgerEntry: Hashable, Sendable {
    /// Position in the log, starting at 1.
    public var seq: UInt64
    /// When the ledger appended the record (the "known at" axis).
    public var recordedAt: Instant
    /// The record.
    public var record: LedgerRecord

    /// Creates an entry.
    public init(seq: UInt64, recordedAt: Instant, record: LedgerRecord) {
        self.seq = seq
        self.recordedAt = recordedAt
        self.record = record
    }
}
