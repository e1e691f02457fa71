import LedgerCore
import LedgerJSON

extension TestPKI {
    /// App Store payloads for tests, shaped as Apple sends them (dates in milliseconds).
    public enum Payloads {
        /// 2026-03-01T00:00:00Z, the signing date tests use unless told otherwise.
        public static let signedDate: Int64 = 1_772_323_200_000

        /// A deterministic UUID string for `number`.
        public static func uuid(_ number: Int) -> String {
            let hex = String(number, radix: 16)
            let tail = String(repeating: "0", count: max(0, 12 - hex.count)) + hex
            return "00000000-0000-4000-8000-" + tail
        }

        /// A `JWSTransactionDecodedPayload` for a monthly subscription period.
        public static func transaction(
            originalTransactionId: String = "2000000000000001",
            transactionId: String = "2000000000000002",
            productId: String = "com.visla.gps.monthly_3", purchaseDate: Int64 = signedDate - 86_400_000,
            expiresDate: Int64 = signedDate + 29 * 86_400_000, bundleId: String = "com.visla.gps",
            environment: LedgerEnvironment = .sandbox, signedDate: Int64? = signedDate,
            appAccountToken: String? = "0000002a-0000-0000-0000-000000000000"
        ) -> JSONValue {
            var object: JSONObject = [
                "transactionId": .string(transactionId),
                "originalTransactionId": .string(originalTransactionId),
                "webOrderLineItemId": "2000000000000003",
                "bundleId": .string(bundleId),
                "productId": .string(productId),
                "subscriptionGroupIdentifier": "21752814",
                "purchaseDate": .integer(purchaseDate),
                "originalPurchaseDate": .integer(purchaseDate),
                "expiresDate": .integer(expiresDate),
                "quantity": 1,
                "type": "Auto-Renewable Subscription",
                "inAppOwnershipType": "PURCHASED",
                "environment": .string(environment.rawValue),
                "transactionReason": "RENEWAL",
                "storefront": "ITA",
                "storefrontId": "143450",
                "price": 11700,
                "currency": "EUR",
            ]
            if let appAccountToken { object["appAccountToken"] = .string(appAccountToken) }
            if let signedDate { object["signedDate"] = .integer(signedDate) }
            return .object(object)
        }

        /// A `JWSRenewalInfoDecodedPayload` with auto-renew on.
        public static func renewalInfo(
            originalTransactionId: String = "2000000000000001",
            productId: String = "com.visla.gps.monthly_3",
            environment: LedgerEnvironment = .sandbox, signedDate: Int64? = signedDate
        ) -> JSONValue {
            var object: JSONObject = [
                "originalTransactionId": .string(originalTransactionId),
                "autoRenewProductId": .string(productId),
                "productId": .string(productId),
                "autoRenewStatus": 1,
                "environment": .string(environment.rawValue),
                "renewalPrice": 11700,
                "currency": "EUR",
            ]
            if let signedDate {
                object["signedDate"] = .integer(signedDate)
                object["renewalDate"] = .integer(signedDate + 29 * 86_400_000)
            }
            return .object(object)
        }

        /// A notification's `data` part.
        public static func notificationData(
            bundleId: String = "com.visla.gps", appAppleId: Int64? = 1_234_567_890,
            environment: LedgerEnvironment = .sandbox, signedTransactionInfo: String? = nil,
            signedRenewalInfo: String? = nil
        ) -> JSONValue {
            var object: JSONObject = [
                "bundleId": .string(bundleId), "bundleVersion": "637",
                "environment": .string(environment.rawValue),
            ]
            if let appAppleId { object["appAppleId"] = .integer(appAppleId) }
            if let signedTransactionInfo {
                object["signedTransactionInfo"] = .string(signedTransactionInfo)
            }
            if let signedRenewalInfo { object["signedRenewalInfo"] = .string(signedRenewalInfo) }
            object["status"] = 1
            return .object(object)
        }

        /// A `responseBodyV2DecodedPayload` with the given part (`data` by default).
        public static func notification(
            type: String, subtype: String? = nil, uuid: String = uuid(1), signedDate: Int64? = signedDate,
            data: JSONValue? = nil, part: String = "data"
        ) -> JSONValue {
            var object: JSONObject = ["notificationType": .string(type)]
            if let subtype { object["subtype"] = .string(subtype) }
            object["notificationUUID"] = .string(uuid)
            if let data { object[part] = data }
            object["version"] = "2.0"
            if let signedDate { object["signedDate"] = .integer(signedDate) }
            return .object(object)
        }
    }
}
