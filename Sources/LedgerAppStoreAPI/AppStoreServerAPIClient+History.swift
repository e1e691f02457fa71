import LedgerAppStore
import LedgerJSON

extension AppStoreServerAPIClient {
    /// The longest window one Get Notification History request asks for: Apple keeps 180 days of history.
    public static let maxHistoryWindowMilliseconds: Int64 = 180 * 86_400_000

    /// The most pages followed for one window or one customer (a server that always says `hasMore`).
    public static let maxPages = 1_000_000

    /// Get Notification History, one page: `POST /inApps/v1/notifications/history[?paginationToken=…]`.
    public func notificationHistoryPage(_ request: NotificationHistoryRequest, paginationToken: String? = nil)
        throws(AppStoreAPIError) -> NotificationHistoryPage
    {
        let query = paginationToken.map { [(name: "paginationToken", value: $0)] } ?? []
        let json = try call("POST", "/inApps/v1/notifications/history", query: query, body: request.json)
        return try NotificationHistoryPage(json: json)
    }

    /// Get Notification History, every page of every window: the request is cut into windows Apple takes
    /// (``maxHistoryWindowMilliseconds``), each followed to its last page. A notification listed twice (pages
    /// or windows overlapping) is returned once. `page` is told of each page fetched.
    public func notificationHistory(
        _ request: NotificationHistoryRequest, page: (NotificationHistoryPage) -> Void = { _ in }
    ) throws(AppStoreAPIError) -> [NotificationHistoryPage.Item] {
        guard request.startDate < request.endDate else {
            throw AppStoreAPIError(.invalidRequest, "the window is empty: its start is not before its end")
        }
        var seen = Set<String>()
        var items: [NotificationHistoryPage.Item] = []
        for window in request.windows(maxLength: Self.maxHistoryWindowMilliseconds) {
            var token: String?
            var tokens = Set<String>()
            for _ in 0..<Self.maxPages {
                let current = try notificationHistoryPage(window, paginationToken: token)
                page(current)
                for item in current.items where seen.insert(item.signedPayload).inserted { items.append(item) }
                guard current.hasMore else { break }
                guard let next = current.paginationToken, tokens.insert(next).inserted else {
                    throw AppStoreAPIError(
                        .invalidResponse,
                        "Get Notification History says hasMore but gives no new paginationToken; stopped paging")
                }
                token = next
            }
        }
        return items
    }

    /// Get Transaction History v2, one page: `GET /inApps/v2/history/{transactionId}[?revision=…]`.
    public func transactionHistoryPage(transactionId: String, revision: String? = nil)
        throws(AppStoreAPIError) -> TransactionHistoryResponse
    {
        let query = revision.map { [(name: "revision", value: $0)] } ?? []
        let json = try call("GET", "/inApps/v2/history/" + Self.percentEncode(transactionId), query: query)
        do {
            return try TransactionHistoryResponse(json: json)
        } catch {
            throw AppStoreAPIError(.invalidResponse, "Get Transaction History: \(error.message)")
        }
    }

    /// Get Transaction History v2, every page (following `revision` while `hasMore`).
    public func transactionHistory(transactionId: String) throws(AppStoreAPIError) -> [TransactionHistoryResponse] {
        var pages: [TransactionHistoryResponse] = []
        var revision: String?
        var revisions = Set<String>()
        for _ in 0..<Self.maxPages {
            let page = try transactionHistoryPage(transactionId: transactionId, revision: revision)
            pages.append(page)
            guard page.hasMore == true else { break }
            guard let next = page.revision, revisions.insert(next).inserted else {
                throw AppStoreAPIError(
                    .invalidResponse, "Get Transaction History says hasMore but gives no new revision; stopped paging")
            }
            revision = next
        }
        return pages
    }
}
