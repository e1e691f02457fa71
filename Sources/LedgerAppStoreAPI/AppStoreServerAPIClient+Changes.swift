import LedgerJSON

/// The calls that change something at Apple: an operator makes them, except Send Consumption Information, which
/// `serve --consumption auto` also sends on its own.
extension AppStoreServerAPIClient {
    /// Send Consumption Information: `PUT /inApps/v2/transactions/consumption/{transactionId}` with Apple's
    /// ``ConsumptionRequest`` (checked against Apple's rules first, so a body Apple would refuse is never sent),
    /// answering a CONSUMPTION_REQUEST notification within its 12 hours. Apple answers 202 with no body.
    public func sendConsumptionInformation(
        transactionId: String, _ request: ConsumptionRequest, autoRenewable: Bool = false
    ) throws(AppStoreAPIError) {
        try request.check(autoRenewable: autoRenewable)
        try sendConsumptionInformation(transactionId: transactionId, request.json)
    }

    /// Send Consumption Information with a body as given (`PUT /inApps/v2/transactions/consumption/{id}`).
    public func sendConsumptionInformation(transactionId: String, _ request: JSONValue) throws(AppStoreAPIError) {
        _ = try call(
            "PUT", "/inApps/v2/transactions/consumption/" + Self.percentEncode(transactionId), body: request)
    }

    /// Extend a Subscription Renewal Date: `PUT /inApps/v1/subscriptions/extend/{originalTransactionId}` with
    /// `extendByDays` (1–90), `extendReasonCode` (0–3) and a `requestIdentifier` (a UUID that makes a retry safe).
    public func extendRenewalDate(
        originalTransactionId: String, extendByDays: Int, extendReasonCode: Int, requestIdentifier: String
    ) throws(AppStoreAPIError) -> JSONValue {
        try call(
            "PUT", "/inApps/v1/subscriptions/extend/" + Self.percentEncode(originalTransactionId),
            body: .object([
                "extendByDays": .int(extendByDays), "extendReasonCode": .int(extendReasonCode),
                "requestIdentifier": .string(requestIdentifier),
            ]))
    }

    /// Extend Subscription Renewal Dates for All Active Subscribers: `POST /inApps/v1/subscriptions/extend/mass`
    /// (optionally only in `storefrontCountryCodes`).
    public func massExtendRenewalDate(
        productId: String, extendByDays: Int, extendReasonCode: Int, requestIdentifier: String,
        storefrontCountryCodes: [String]? = nil
    ) throws(AppStoreAPIError) -> JSONValue {
        var body: JSONObject = [
            "productId": .string(productId), "extendByDays": .int(extendByDays),
            "extendReasonCode": .int(extendReasonCode), "requestIdentifier": .string(requestIdentifier),
        ]
        if let storefrontCountryCodes {
            body["storefrontCountryCodes"] = .array(storefrontCountryCodes.map { .string($0) })
        }
        return try call("POST", "/inApps/v1/subscriptions/extend/mass", body: .object(body))
    }

    /// Get Status of Subscription Renewal Date Extensions:
    /// `GET /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}`.
    public func massExtensionStatus(productId: String, requestIdentifier: String) throws(AppStoreAPIError)
        -> JSONValue
    {
        try call(
            "GET",
            "/inApps/v1/subscriptions/extend/mass/" + Self.percentEncode(productId) + "/"
                + Self.percentEncode(requestIdentifier))
    }
}
