import LedgerCore
import LedgerJSON

/// A legacy `verifyReceipt` response (deprecated by Apple, still found in old backups): unsigned,
/// every number, date and boolean a JSON string.
///
/// Statuses 0 and 21006 (valid receipt, expired subscription, still decoded) are accepted; any other
/// status is rejected on decoding with Apple's meaning (21007: a sandbox receipt sent to production…).
public struct LegacyReceiptResponse: Hashable, Sendable {
    /// The response's status (0 or 21006 once decoded).
    public var status: LegacyReceiptStatus
    /// `environment`: `Sandbox` or `Production`; absent in iOS 6-style responses.
    public var environment: LedgerEnvironment?
    /// `receipt.bundle_id` (or iOS 6-style `bid`).
    public var bundleId: String?
    /// `receipt.receipt_type`: `Production` for a production receipt; `ProductionSandbox` or `Sandbox` for a
    /// sandbox one (Apple's VPP variants end the same way).
    public var receiptType: String?
    /// `receipt.adam_id` (or iOS 6-style `item_id`/`app_item_id`): the App Apple ID of the app that bought;
    /// 0 or absent in sandbox.
    public var adamId: Int64?
    /// `receipt.request_date_ms`: when Apple answered, the instant the facts are as of.
    public var requestDate: Instant?
    /// `receipt.receipt_creation_date_ms`: when the receipt was created.
    public var receiptCreationDate: Instant?
    /// The transactions: `latest_receipt_info`, `latest_expired_receipt_info`, `receipt.in_app`
    /// and, iOS 6-style, the receipt itself, in that order (the same state may repeat).
    public var transactions: [LegacyTransaction]
    /// `pending_renewal_info`.
    public var pendingRenewalInfo: [LegacyRenewalInfo]
    /// The JSON this was decoded from.
    public var raw: JSONValue

    /// Decodes a response.
    ///
    /// - Throws: ``AppStoreError/Code/receiptStatus`` for a status other than 0 and 21006, naming the
    ///   status and its meaning; a field error for a malformed value.
    public init(json: JSONValue) throws(AppStoreError) {
        let top = try LegacyFields(json, path: "")
        guard let number = try top.int64("status") else { throw .missing("status") }
        status = LegacyReceiptStatus(rawValue: number)
        guard status.isAccepted else {
            throw AppStoreError(
                .receiptStatus,
                "legacy receipt status \(number): \(status.meaning); nothing was imported from this response",
                path: "status")
        }
        environment = try top.fields.environment()
        var transactions: [LegacyTransaction] = []
        for key in ["latest_receipt_info", "latest_expired_receipt_info"] {
            for entry in try top.objects(key) {
                transactions.append(try LegacyTransaction(json: entry.value, path: entry.path))
            }
        }
        if let receiptJSON = try top.fields.objectValue("receipt") {
            let receipt = try LegacyFields(receiptJSON, path: "receipt")
            let bid = try receipt.string("bid")
            bundleId = try receipt.string("bundle_id") ?? bid
            receiptType = try receipt.string("receipt_type")
            for key in ["adam_id", "app_item_id", "item_id"] where adamId == nil { adamId = try receipt.int64(key) }
            requestDate = try receipt.date("request_date")
            receiptCreationDate = try receipt.date("receipt_creation_date")
            for entry in try receipt.objects("in_app") {
                transactions.append(try LegacyTransaction(json: entry.value, path: entry.path))
            }
            if try receipt.string("transaction_id") != nil {
                transactions.append(try LegacyTransaction(json: receiptJSON, path: "receipt"))
            }
        }
        self.transactions = transactions
        var renewals: [LegacyRenewalInfo] = []
        for entry in try top.objects("pending_renewal_info") {
            renewals.append(try LegacyRenewalInfo(json: entry.value, path: entry.path))
        }
        pendingRenewalInfo = renewals
        raw = json
    }

    /// The instant the response's facts are as of, used as their signed date: the receipt's request
    /// date (when Apple's server answered), else its creation date, else the latest purchase or
    /// cancellation date among the transactions (iOS 6-style responses carry neither).
    public var asOf: Instant? {
        if let requestDate { return requestDate }
        if let receiptCreationDate { return receiptCreationDate }
        return transactions.flatMap { [$0.purchaseDate, $0.cancellationDate] }.compactMap { $0 }.max()
    }
}
