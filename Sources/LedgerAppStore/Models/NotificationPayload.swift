import LedgerCore
import LedgerJSON

/// The decoded payload of an App Store Server Notification V2 (`responseBodyV2DecodedPayload`).
///
/// At most one of ``data``, ``summary``, ``externalPurchaseToken`` and ``appData`` is present.
/// Unknown notification types and subtypes decode and are kept raw.
public struct NotificationPayload: Hashable, Sendable {
    /// What happened.
    public var notificationType: NotificationType
    /// Details of what happened; absent for many types.
    public var subtype: NotificationSubtype?
    /// Unique per notification (Apple retries deliveries with the same one), canonical lower-case.
    public var notificationUUID: String
    /// App metadata and the signed transaction and renewal info.
    public var data: NotificationData?
    /// The outcome of a mass renewal extension (RENEWAL_EXTENSION / SUMMARY).
    public var summary: NotificationSummary?
    /// An External Purchase API token (EXTERNAL_PURCHASE_TOKEN).
    public var externalPurchaseToken: ExternalPurchaseToken?
    /// App metadata of a RESCIND_CONSENT notification.
    public var appData: AppData?
    /// The notification format version, `2.0`; absent in Apple's mock test notification.
    public var version: String?
    /// When the App Store signed the notification.
    public var signedDate: Instant
    /// The JSON this was decoded from.
    public var raw: JSONValue

    /// Decodes a verified notification payload. The type, the UUID and the signed date are required;
    /// every other field may be absent. A known field of the wrong JSON type is an error. With
    /// `requiringLedgerFields` false, as Apple's libraries do: every field may be absent (read empty).
    public init(json: JSONValue, requiringLedgerFields: Bool = true) throws(AppStoreError) {
        var fields = try JSONFields(json, path: "")
        fields.ledgerFieldsRequired = requiringLedgerFields
        notificationType = NotificationType(rawValue: try fields.requiredString("notificationType"))
        subtype = try fields.raw("subtype")
        let uuid = try fields.uuid("notificationUUID")
        if uuid == nil, requiringLedgerFields { throw .missing("notificationUUID") }
        notificationUUID = uuid ?? ""
        data = try fields.objectValue("data").map { value throws(AppStoreError) in
            try NotificationData(json: value)
        }
        summary = try fields.objectValue("summary").map { value throws(AppStoreError) in
            try NotificationSummary(json: value)
        }
        externalPurchaseToken = try fields.objectValue("externalPurchaseToken").map { value throws(AppStoreError) in
            try ExternalPurchaseToken(json: value)
        }
        appData = try fields.objectValue("appData").map { value throws(AppStoreError) in
            try AppData(json: value)
        }
        version = try fields.string("version")
        signedDate = try fields.requiredInstant("signedDate")
        raw = json
    }

    /// The environment named by whichever of data, summary, externalPurchaseToken (derived) or
    /// appData is present, in that order; nil when none is.
    public var environment: LedgerEnvironment? {
        data?.environment ?? summary?.environment ?? externalPurchaseToken?.environment ?? appData?.environment
    }

    /// The bundle identifier from whichever member carries it.
    public var bundleId: String? {
        data?.bundleId ?? summary?.bundleId ?? externalPurchaseToken?.bundleId ?? appData?.bundleId
    }

    /// The app's Apple id from whichever member carries it.
    public var appAppleId: Int64? {
        data?.appAppleId ?? summary?.appAppleId ?? externalPurchaseToken?.appAppleId ?? appData?.appAppleId
    }
}
