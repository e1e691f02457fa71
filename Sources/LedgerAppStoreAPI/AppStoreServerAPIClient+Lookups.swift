import LedgerJSON

extension AppStoreServerAPIClient {
    /// Get All Subscription Statuses: `GET /inApps/v1/subscriptions/{transactionId}` (`StatusResponse`).
    public func subscriptionStatuses(transactionId: String) throws(AppStoreAPIError) -> JSONValue {
        try call("GET", "/inApps/v1/subscriptions/" + Self.percentEncode(transactionId))
    }

    /// Get Transaction Info: `GET /inApps/v1/transactions/{transactionId}` (`signedTransactionInfo`).
    public func transactionInfo(transactionId: String) throws(AppStoreAPIError) -> JSONValue {
        try call("GET", "/inApps/v1/transactions/" + Self.percentEncode(transactionId))
    }

    /// Look Up Order ID: `GET /inApps/v1/lookup/{orderId}` (`status`, `signedTransactions`).
    public func lookUpOrder(orderId: String) throws(AppStoreAPIError) -> JSONValue {
        try call("GET", "/inApps/v1/lookup/" + Self.percentEncode(orderId))
    }

    /// Get Refund History, one page: `GET /inApps/v2/refund/lookup/{transactionId}[?revision=…]`.
    public func refundHistoryPage(transactionId: String, revision: String? = nil) throws(AppStoreAPIError)
        -> JSONValue
    {
        let query = revision.map { [(name: "revision", value: $0)] } ?? []
        return try call("GET", "/inApps/v2/refund/lookup/" + Self.percentEncode(transactionId), query: query)
    }

    /// Request a Test Notification: `POST /inApps/v1/notifications/test` (`testNotificationToken`).
    public func requestTestNotification() throws(AppStoreAPIError) -> JSONValue {
        try call("POST", "/inApps/v1/notifications/test")
    }

    /// Get Test Notification Status: `GET /inApps/v1/notifications/test/{testNotificationToken}`.
    public func testNotificationStatus(token: String) throws(AppStoreAPIError) -> JSONValue {
        try call("GET", "/inApps/v1/notifications/test/" + Self.percentEncode(token))
    }
}
