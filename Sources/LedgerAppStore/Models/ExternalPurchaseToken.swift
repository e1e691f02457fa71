import LedgerCore
import LedgerJSON

/// `externalPurchaseToken` of an EXTERNAL_PURCHASE_TOKEN notification (External Purchase API).
public struct ExternalPurchaseToken: Hashable, Sendable {
    /// The token's identifier; sandbox tokens start with `SANDBOX`.
    public var externalPurchaseId: String?
    /// When the token was created.
    public var tokenCreationDate: Instant?
    /// The app's Apple id.
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The JSON this was decoded from.
    public var raw: JSONValue

    /// Decodes `externalPurchaseToken`; `path` names it in errors.
    public init(json: JSONValue, path: String = "externalPurchaseToken") throws(AppStoreError) {
        let fields = try JSONFields(json, path: path)
        externalPurchaseId = try fields.string("externalPurchaseId")
        tokenCreationDate = try fields.instant("tokenCreationDate")
        appAppleId = try fields.int64("appAppleId")
        bundleId = try fields.string("bundleId")
        raw = json
    }

    /// The environment, which the token does not carry: Sandbox when ``externalPurchaseId`` starts
    /// with `SANDBOX`, otherwise Production (as Apple's libraries derive it).
    public var environment: LedgerEnvironment {
        externalPurchaseId?.hasPrefix("SANDBOX") == true ? .sandbox : .production
    }
}
