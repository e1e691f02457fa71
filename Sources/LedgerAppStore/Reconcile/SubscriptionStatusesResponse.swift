import LedgerCore
import LedgerJSON

/// The App Store Server API's Get All Subscription Statuses response (`StatusResponse`): for each
/// subscription group, the last transaction and renewal info of each subscription.
public struct SubscriptionStatusesResponse: Hashable, Sendable {
    /// One entry per subscription group.
    public var data: [SubscriptionGroupStatus]
    /// `Sandbox` or `Production`.
    public var environment: LedgerEnvironment?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The app's Apple id.
    public var appAppleId: Int64?
    /// The JSON this was decoded from.
    public var raw: JSONValue

    /// Decodes a Get All Subscription Statuses response.
    public init(json: JSONValue) throws(AppStoreError) {
        let fields = try JSONFields(json, path: "")
        guard let groups = try fields.array("data") else { throw .missing("data") }
        var decoded: [SubscriptionGroupStatus] = []
        for (i, group) in groups.enumerated() {
            decoded.append(try SubscriptionGroupStatus(json: group, path: "data[\(i)]"))
        }
        data = decoded
        environment = try fields.environment()
        bundleId = try fields.string("bundleId")
        appAppleId = try fields.int64("appAppleId")
        raw = json
    }

    /// Every subscription's last status, across groups.
    public var lastTransactions: [LastTransactionStatus] { data.flatMap(\.lastTransactions) }
}

/// One subscription group's entry of a status response (`SubscriptionGroupIdentifierItem`).
public struct SubscriptionGroupStatus: Hashable, Sendable {
    /// The group, e.g. `21752814`.
    public var subscriptionGroupIdentifier: String?
    /// The last transaction of each subscription in the group.
    public var lastTransactions: [LastTransactionStatus]
    /// The JSON this was decoded from.
    public var raw: JSONValue

    /// Decodes a group entry; `path` names it in errors.
    public init(json: JSONValue, path: String) throws(AppStoreError) {
        let fields = try JSONFields(json, path: path)
        subscriptionGroupIdentifier = try fields.string("subscriptionGroupIdentifier")
        var items: [LastTransactionStatus] = []
        for (i, item) in (try fields.array("lastTransactions") ?? []).enumerated() {
            items.append(try LastTransactionStatus(json: item, path: fields.path("lastTransactions[\(i)]")))
        }
        lastTransactions = items
        raw = json
    }
}
