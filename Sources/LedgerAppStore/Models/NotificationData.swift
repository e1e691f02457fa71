import LedgerCore
import LedgerJSON

/// `data` of a notification: the app's metadata plus the signed transaction and renewal info.
///
/// The two signed members stay compact JWS strings here: the verification layer verifies each and
/// hands its decoded payload to ``TransactionPayload`` and ``RenewalInfoPayload``.
public struct NotificationData: Hashable, Sendable {
    /// The app's Apple id; absent in sandbox TEST notifications.
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The app's build number, e.g. `637`.
    public var bundleVersion: String?
    /// `Sandbox` or `Production` (`Xcode`, `LocalTesting` in Apple's tooling).
    public var environment: LedgerEnvironment?
    /// The signed transaction (`JWSTransactionDecodedPayload`), as a compact JWS.
    public var signedTransactionInfo: String?
    /// The signed renewal info (`JWSRenewalInfoDecodedPayload`), as a compact JWS; absent for
    /// products that are not subscriptions.
    public var signedRenewalInfo: String?
    /// The subscription's status as of the notification's signed date.
    public var status: SubscriptionStatus?
    /// Why the customer asked for a refund (CONSUMPTION_REQUEST only).
    public var consumptionRequestReason: ConsumptionRequestReason?
    /// The JSON this was decoded from.
    public var raw: JSONValue

    /// Decodes `data`; `path` names it in errors.
    public init(json: JSONValue, path: String = "data") throws(AppStoreError) {
        let fields = try JSONFields(json, path: path)
        appAppleId = try fields.int64("appAppleId")
        bundleId = try fields.string("bundleId")
        bundleVersion = try fields.string("bundleVersion")
        environment = try fields.environment()
        signedTransactionInfo = try fields.string("signedTransactionInfo")
        signedRenewalInfo = try fields.string("signedRenewalInfo")
        status = try fields.raw("status")
        consumptionRequestReason = try fields.raw("consumptionRequestReason")
        raw = json
    }
}
