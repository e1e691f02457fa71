import LedgerCore
import LedgerJSON

/// `summary` of a RENEWAL_EXTENSION / SUMMARY notification: the outcome of a mass renewal-date
/// extension (Extend Subscription Renewal Dates for All Active Subscribers).
public struct NotificationSummary: Hashable, Sendable {
    /// `Sandbox` or `Production`.
    public var environment: LedgerEnvironment?
    /// The app's Apple id.
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The product whose subscriptions were extended.
    public var productId: String?
    /// The identifier the developer gave the extension request.
    public var requestIdentifier: String?
    /// The storefronts (ISO 3166-1 alpha-3) the extension covered.
    public var storefrontCountryCodes: [String]?
    /// How many subscriptions were extended.
    public var succeededCount: Int64?
    /// How many subscriptions could not be extended.
    public var failedCount: Int64?
    /// The JSON this was decoded from.
    public var raw: JSONValue

    /// Decodes `summary`; `path` names it in errors.
    public init(json: JSONValue, path: String = "summary") throws(AppStoreError) {
        let fields = try JSONFields(json, path: path)
        environment = try fields.environment()
        appAppleId = try fields.int64("appAppleId")
        bundleId = try fields.string("bundleId")
        productId = try fields.string("productId")
        requestIdentifier = try fields.string("requestIdentifier")
        storefrontCountryCodes = try fields.strings("storefrontCountryCodes")
        succeededCount = try fields.int64("succeededCount")
        failedCount = try fields.int64("failedCount")
        raw = json
    }
}
