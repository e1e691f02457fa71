import LedgerJSON

/// The body of Get Notification History (`NotificationHistoryRequest`): a window in milliseconds and the
/// optional filters Apple takes.
public struct NotificationHistoryRequest: Sendable, Hashable {
    /// The window's start, ms since the epoch (inclusive).
    public var startDate: Int64
    /// The window's end, ms since the epoch.
    public var endDate: Int64
    /// Only notifications Apple failed to deliver.
    public var onlyFailures: Bool?
    /// Only this notification type.
    public var notificationType: String?
    /// Only this subtype (with its type).
    public var notificationSubtype: String?
    /// Only one customer's notifications (exclusive with the type filter).
    public var transactionId: String?

    /// Creates a request.
    public init(
        startDate: Int64, endDate: Int64, onlyFailures: Bool? = nil, notificationType: String? = nil,
        notificationSubtype: String? = nil, transactionId: String? = nil
    ) {
        self.startDate = startDate
        self.endDate = endDate
        self.onlyFailures = onlyFailures
        self.notificationType = notificationType
        self.notificationSubtype = notificationSubtype
        self.transactionId = transactionId
    }

    /// The JSON Apple expects, only the fields that are set.
    public var json: JSONValue {
        var object: JSONObject = ["startDate": .integer(startDate), "endDate": .integer(endDate)]
        if let notificationType { object["notificationType"] = .string(notificationType) }
        if let notificationSubtype { object["notificationSubtype"] = .string(notificationSubtype) }
        if let transactionId { object["transactionId"] = .string(transactionId) }
        if let onlyFailures { object["onlyFailures"] = .bool(onlyFailures) }
        return .object(object)
    }

    /// The request cut into windows of at most `maxLength` milliseconds, in order.
    public func windows(maxLength: Int64) -> [NotificationHistoryRequest] {
        var out: [NotificationHistoryRequest] = []
        var start = startDate
        repeat {
            var part = self
            part.startDate = start
            part.endDate = endDate - start > maxLength ? start + maxLength : endDate
            out.append(part)
            start = part.endDate
        } while start < endDate
        return out
    }
}

/// One page of Get Notification History (`NotificationHistoryResponse`).
public struct NotificationHistoryPage: Sendable, Hashable {
    /// One notification Apple attempted to send.
    public struct Item: Sendable, Hashable {
        /// The notification exactly as Apple signed it (verify it as a webhook body's).
        public var signedPayload: String
        /// Each delivery attempt: when (ms) and how it went (`SUCCESS`, `TIMED_OUT`, …).
        public var sendAttemptResults: [(attemptDate: Int64?, sendAttemptResult: String?)]

        public static func == (lhs: Item, rhs: Item) -> Bool { lhs.signedPayload == rhs.signedPayload }
        public func hash(into hasher: inout Hasher) { hasher.combine(signedPayload) }
    }

    /// The notifications, oldest first.
    public var items: [Item]
    /// Whether more pages follow.
    public var hasMore: Bool
    /// The token for the next page.
    public var paginationToken: String?

    /// Decodes a page.
    public init(json: JSONValue) throws(AppStoreAPIError) {
        guard case .object = json else { throw Self.invalid("the response is not a JSON object") }
        hasMore = json["hasMore"]?.bool ?? false
        paginationToken = json["paginationToken"]?.string
        // Apple always sends the array (empty when there is nothing): a 200 without it (`{}`, an empty body from
        // a proxy) fetched nothing, and must not pass for a window with no notifications.
        guard let history = json["notificationHistory"]?.array else {
            throw Self.invalid("the response has no notificationHistory array, so nothing was fetched")
        }
        var items: [Item] = []
        for (index, entry) in history.enumerated() {
            guard let signed = entry["signedPayload"]?.string else {
                throw Self.invalid("notificationHistory[\(index)] has no signedPayload string")
            }
            let attempts = (entry["sendAttemptResults"]?.array ?? []).map {
                (attemptDate: $0["attemptDate"]?.int64, sendAttemptResult: $0["sendAttemptResult"]?.string)
            }
            items.append(Item(signedPayload: signed, sendAttemptResults: attempts))
        }
        self.items = items
    }

    static func invalid(_ message: String) -> AppStoreAPIError {
        AppStoreAPIError(.invalidResponse, "Get Notification History: \(message)")
    }
}
