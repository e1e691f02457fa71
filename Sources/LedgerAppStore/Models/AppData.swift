import LedgerCore
import LedgerJSON

/// `appData` of a RESCIND_CONSENT notification: the app's metadata and its signed app transaction.
public struct AppData: Hashable, Sendable {
    /// The app's Apple id.
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// `Sandbox` or `Production`.
    public var environment: LedgerEnvironment?
    /// The signed app transaction (`JWSAppTransactionDecodedPayload`), as a compact JWS.
    public var signedAppTransactionInfo: String?
    /// The JSON this was decoded from.
    public var raw: JSONValue

    /// Decodes `appData`; `path` names it in errors.
    public init(json: JSONValue, path: String = "appData") throws(AppStoreError) {
        let fields = try JSONFields(json, path: path)
        appAppleId = try fields.int64("appAppleId")
        bundleId = try fields.string("bundleId")
        environment = try fields.environment()
        signedAppTransactionInfo = try fields.string("signedAppTransactionInfo")
        raw = json
    }
}
