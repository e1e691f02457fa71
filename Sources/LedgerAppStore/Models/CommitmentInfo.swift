import LedgerCore
import LedgerJSON

/// `commitmentInfo` of a transaction or renewal info: the terms of a commitment plan (a subscription
/// bought for a fixed number of billing periods).
public struct CommitmentInfo: Hashable, Sendable {
    /// Which billing period of the commitment this is, from 1.
    public var billingPeriodNumber: Int32?
    /// When the commitment ends.
    public var commitmentExpiresDate: Instant?
    /// The commitment's total price, in milliunits of the transaction's currency.
    public var commitmentPrice: Int64?
    /// How many billing periods the commitment has.
    public var totalBillingPeriods: Int32?
    /// The JSON this was decoded from.
    public var raw: JSONValue

    /// Decodes `commitmentInfo`; `path` names it in errors.
    public init(json: JSONValue, path: String) throws(AppStoreError) {
        let fields = try JSONFields(json, path: path)
        billingPeriodNumber = try fields.int32("billingPeriodNumber")
        commitmentExpiresDate = try fields.instant("commitmentExpiresDate")
        commitmentPrice = try fields.int64("commitmentPrice")
        totalBillingPeriods = try fields.int32("totalBillingPeriods")
        raw = json
    }
}

extension JSONFields {
    /// A `commitmentInfo` member.
    func commitmentInfo(_ key: String = "commitmentInfo") throws(AppStoreError) -> CommitmentInfo? {
        guard let value = try objectValue(key) else { return nil }
        return try CommitmentInfo(json: value, path: path(key))
    }
}
