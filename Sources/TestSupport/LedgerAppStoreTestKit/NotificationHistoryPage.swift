import LedgerJSON

/// The App Store's side of Get Notification History: one page of its response body, as Apple documents it, for
/// the servers that stand in for Apple (the tests' fake and the demo's).
public enum NotificationHistoryPage {
    /// The body of a page holding `items` (each notification's first send attempt dated `date`, which got no
    /// response), with `paginationToken` when more pages follow.
    public static func json(_ items: [(date: Int64, signedPayload: String)], paginationToken: String?) -> JSONValue {
        var object: JSONObject = [
            "notificationHistory": .array(
                items.map {
                    .object([
                        "sendAttemptResults": .array([
                            .object(["attemptDate": .integer($0.date), "sendAttemptResult": "NO_RESPONSE"])
                        ]),
                        "signedPayload": .string($0.signedPayload),
                    ])
                }),
            "hasMore": .bool(paginationToken != nil),
        ]
        if let paginationToken { object["paginationToken"] = .string(paginationToken) }
        return .object(object)
    }
}
