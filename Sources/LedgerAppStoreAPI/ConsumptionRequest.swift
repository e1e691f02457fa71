import LedgerJSON

/// Apple's `ConsumptionRequest` (App Store Server API 1.19+), the body of Send Consumption Information: three
/// required fields (`customerConsented`, `deliveryStatus`, `sampleContentProvided`) and two optional ones
/// (`consumptionPercentage`, `refundPreference`). The V1 fields (`accountTenure`, `playTime`,
/// `lifetimeDollarsPurchased`, …) belong to the deprecated V1 endpoint, kept by Apple for the Advanced Commerce
/// API only.
public struct ConsumptionRequest: Sendable, Equatable {
    /// Apple's `deliveryStatus` values.
    public static let deliveryStatuses = [
        "DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE",
        "UNDELIVERED_OTHER",
    ]
    /// Apple's `refundPreference` values.
    public static let refundPreferences = ["DECLINE", "GRANT_FULL", "GRANT_PRORATED"]
    /// Every field Apple documents.
    public static let fields: Set<String> = [
        "customerConsented", "consumptionPercentage", "deliveryStatus", "refundPreference", "sampleContentProvided",
    ]

    /// Whether the customer consented to share consumption data; Apple refuses anything but true (HTTP 400,
    /// InvalidCustomerConsentedError).
    public var customerConsented: Bool
    /// Whether the app delivered a working In-App Purchase: one of ``deliveryStatuses``.
    public var deliveryStatus: String
    /// Whether the customer had a free sample, a trial or information about the functionality before buying.
    public var sampleContentProvided: Bool
    /// How much was consumed, in milliunits (0–100000); never for an auto-renewable subscription (Apple computes
    /// it from the elapsed time), and 0 when ``deliveryStatus`` is not `DELIVERED`.
    public var consumptionPercentage: Int?
    /// The app's preferred outcome: one of ``refundPreferences``, or none.
    public var refundPreference: String?

    /// Creates a request.
    public init(
        customerConsented: Bool, deliveryStatus: String, sampleContentProvided: Bool,
        consumptionPercentage: Int? = nil, refundPreference: String? = nil
    ) {
        self.customerConsented = customerConsented
        self.deliveryStatus = deliveryStatus
        self.sampleContentProvided = sampleContentProvided
        self.consumptionPercentage = consumptionPercentage
        self.refundPreference = refundPreference
    }

    /// The JSON body, absent optional fields left out.
    public var json: JSONValue {
        var object: JSONObject = [
            "customerConsented": .bool(customerConsented), "deliveryStatus": .string(deliveryStatus),
            "sampleContentProvided": .bool(sampleContentProvided),
        ]
        if let consumptionPercentage { object["consumptionPercentage"] = .int(consumptionPercentage) }
        if let refundPreference { object["refundPreference"] = .string(refundPreference) }
        return .object(object)
    }

    /// Reads and checks a body against Apple's documented rules; the error names the first rule broken.
    public init(json value: JSONValue, autoRenewable: Bool = false) throws(AppStoreAPIError) {
        func refuse(_ reason: String) -> AppStoreAPIError { AppStoreAPIError(.invalidRequest, reason) }
        guard let object = value.object else { throw refuse("a ConsumptionRequest is a JSON object") }
        for (name, _) in object where !Self.fields.contains(name) {
            throw refuse(
                "unknown field '\(name)' (Send Consumption Information takes "
                    + Self.fields.sorted().joined(separator: ", ") + ")")
        }
        guard let consented = object["customerConsented"]?.bool else {
            throw refuse("customerConsented must be true or false")
        }
        guard let delivery = object["deliveryStatus"]?.string else {
            throw refuse("deliveryStatus is missing (one of " + Self.deliveryStatuses.joined(separator: ", ") + ")")
        }
        guard let sample = object["sampleContentProvided"]?.bool else {
            throw refuse("sampleContentProvided must be true or false")
        }
        var percentage: Int?
        if let member = object["consumptionPercentage"] {
            guard let number = member.int64, (0...100_000).contains(number) else {
                throw refuse("consumptionPercentage must be an integer from 0 to 100000 (milliunits)")
            }
            percentage = Int(number)
        }
        var preference: String?
        if let member = object["refundPreference"] {
            guard let text = member.string else {
                throw refuse("refundPreference must be one of " + Self.refundPreferences.joined(separator: ", "))
            }
            preference = text
        }
        self.init(
            customerConsented: consented, deliveryStatus: delivery, sampleContentProvided: sample,
            consumptionPercentage: percentage, refundPreference: preference)
        try check(autoRenewable: autoRenewable)
    }

    /// Apple's rules for the body (ConsumptionRequest, consumptionPercentage and refundPreference documentation).
    public func check(autoRenewable: Bool = false) throws(AppStoreAPIError) {
        func refuse(_ reason: String) -> AppStoreAPIError { AppStoreAPIError(.invalidRequest, reason) }
        guard customerConsented else {
            throw refuse(
                "customerConsented must be true: Apple refuses consumption information without the customer's "
                    + "consent (InvalidCustomerConsentedError)")
        }
        guard Self.deliveryStatuses.contains(deliveryStatus) else {
            throw refuse("deliveryStatus must be one of " + Self.deliveryStatuses.joined(separator: ", "))
        }
        if let refundPreference, !Self.refundPreferences.contains(refundPreference) {
            throw refuse("refundPreference must be one of " + Self.refundPreferences.joined(separator: ", "))
        }
        if let consumptionPercentage {
            guard (0...100_000).contains(consumptionPercentage) else {
                throw refuse("consumptionPercentage must be an integer from 0 to 100000 (milliunits)")
            }
            guard !autoRenewable else {
                throw refuse(
                    "consumptionPercentage is not sent for an auto-renewable subscription: Apple computes it "
                        + "(ConsumptionPercentageAutoRenewableSubscriptionError)")
            }
            guard deliveryStatus == "DELIVERED" || consumptionPercentage == 0 else {
                throw refuse(
                    "consumptionPercentage must be 0 when deliveryStatus is not DELIVERED "
                        + "(UndeliveredConsumptionPercentageNonZeroError)")
            }
            guard refundPreference != "GRANT_PRORATED" || (1..<100_000).contains(consumptionPercentage) else {
                throw refuse("GRANT_PRORATED needs a consumptionPercentage above 0 and below 100000")
            }
        }
    }
}
