import LedgerAppStore
import LedgerAppStoreTestKit
import LedgerCrypto
import LedgerHTTP
import LedgerJSON

extension FakeAppStoreAPI {
    /// Whether a bearer token is one Apple would take: an ES256 JWS by the test key with Apple's header and
    /// claims, not expired, living at most an hour, and not refused by a fault.
    func checkToken(_ token: String) -> Bool {
        if state.withLock({ $0.refusedTokens.contains(token) }) { return false }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64.decodeURL(String(parts[0])),
            let claimBytes = Base64.decodeURL(String(parts[1])), let signature = Base64.decodeURL(String(parts[2])),
            let header = try? JSONValue.parse(headerBytes), let claims = try? JSONValue.parse(claimBytes),
            let raw = try? ECDSASignature(rawRepresentation: signature)
        else { return false }
        guard header["alg"]?.string == "ES256", header["kid"]?.string == keyId, header["typ"]?.string == "JWT"
        else { return false }
        let signingInput = Array((parts[0] + "." + parts[1]).utf8)
        guard publicKey.isValidSignature(raw, for: signingInput, digest: .sha256) else { return false }
        let now = clock() / 1000
        guard claims["iss"]?.string == issuerId, claims["aud"]?.string == "appstoreconnect-v1",
            claims["bid"]?.string == bundleId, let issued = claims["iat"]?.int64, let expires = claims["exp"]?.int64,
            expires > now, issued <= now + 60, expires - issued <= 3600
        else { return false }
        return true
    }

    /// Get Notification History: the window's notifications by date, a page at a time.
    func notificationHistory(_ request: HTTPRequest) -> HTTPResponse {
        guard let body = try? JSONValue.parse(request.body), let start = body["startDate"]?.int64,
            let end = body["endDate"]?.int64
        else { return Self.error(400, 4_000_000, "An error occurred. Please try again.") }
        state.withLock { $0.historyBodies.append(body) }
        guard start < end else { return Self.error(400, 4_000_013, "Start date after end date.") }
        let offset: Int
        if let token = request.query("paginationToken") {
            guard let parsed = Self.offset(token) else {
                return Self.error(400, 4_000_014, "Invalid pagination token.")
            }
            offset = parsed
        } else {
            offset = 0
        }
        let window = state.withLock { state in
            state.notifications.filter { $0.date >= start && $0.date < end }.sorted { $0.date < $1.date }
        }
        let page = window.dropFirst(offset).prefix(pageSize)
        let hasMore = offset + page.count < window.count
        let pageBody = NotificationHistoryPage.json(
            page.map { ($0.date, $0.signedPayload) }, paginationToken: hasMore ? Self.token(offset + page.count) : nil)
        return HTTPResponse.json(.ok, pageBody)
    }

    /// Get Transaction History v2: the customer's transactions, a page at a time.
    func transactionHistory(_ id: String, _ request: HTTPRequest) -> HTTPResponse {
        guard let all = state.withLock({ $0.transactions[id] }) else {
            return Self.error(404, 4_040_010, "Transaction id not found.")
        }
        var offset = 0
        if let revision = request.query("revision") {
            guard let parsed = Self.offset(revision) else {
                return Self.error(400, 4_000_005, "Invalid request revision.")
            }
            offset = parsed
        }
        let page = all.dropFirst(offset).prefix(pageSize)
        let hasMore = offset + page.count < all.count
        return HTTPResponse.json(
            .ok,
            .object([
                "revision": .string(Self.token(offset + page.count)), "bundleId": .string(bundleId),
                "environment": .string(environment.rawValue), "hasMore": .bool(hasMore),
                "signedTransactions": .array(page.map { .string($0) }),
            ]))
    }

    /// Send Consumption Information's path, before the transaction id.
    static let consumptionPrefix = "/inApps/v2/transactions/consumption/"

    /// Send Consumption Information: 202 for a ConsumptionRequest Apple takes (recorded in ``changes``); 400 with
    /// Apple's error code for one it refuses: `customerConsented` not true (InvalidCustomerConsentedError), a
    /// `deliveryStatus` it does not know (InvalidDeliveryStatusError), `sampleContentProvided` not a boolean
    /// (InvalidSampleContentProvidedError), a field of the V1 body or another unknown one (GeneralBadRequestError);
    /// 400 InvalidTransactionIdError for an id that is not digits.
    func consumption(_ request: HTTPRequest) -> HTTPResponse {
        let id = request.path.dropFirst(Self.consumptionPrefix.count)
        guard !id.isEmpty, id.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return Self.error(400, 4_000_006, "Invalid transaction id.")
        }
        guard let body = try? JSONValue.parse(request.body), let object = body.object else {
            return Self.error(400, 4_000_000, "An error occurred. Please try again.")
        }
        let known: Set<String> = [
            "customerConsented", "consumptionPercentage", "deliveryStatus", "refundPreference",
            "sampleContentProvided",
        ]
        guard object.allSatisfy({ known.contains($0.key) }) else {
            return Self.error(400, 4_000_000, "An error occurred. Please try again.")
        }
        guard object["customerConsented"]?.bool == true else {
            return Self.error(400, 4_000_035, "Invalid customer consented.")
        }
        let statuses = [
            "DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE",
            "UNDELIVERED_OTHER",
        ]
        guard let delivery = object["deliveryStatus"]?.string, statuses.contains(delivery) else {
            return Self.error(400, 4_000_036, "Invalid delivery status.")
        }
        guard object["sampleContentProvided"]?.bool != nil else {
            return Self.error(400, 4_000_041, "Invalid sample content provided.")
        }
        state.withLock { $0.changes.append((request.path, body)) }
        return HTTPResponse(status: HTTPStatus(code: 202, reason: "Accepted"))
    }

    /// An opaque-looking page token for an offset.
    static func token(_ offset: Int) -> String { Base64.encodeURL(Array("page:\(offset)".utf8)) }

    static func offset(_ token: String) -> Int? {
        guard let bytes = Base64.decodeURL(token) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.hasPrefix("page:") else { return nil }
        return Int(text.dropFirst(5))
    }
}
