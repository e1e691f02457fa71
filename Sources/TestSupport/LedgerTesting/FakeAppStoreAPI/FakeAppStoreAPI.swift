import LedgerAppStore
import LedgerCore
import LedgerCrypto
import LedgerHTTP
import LedgerJSON
import LedgerSystem
import Synchronization

/// A fake App Store Server API on loopback, written from Apple's documentation, for tests: it checks each
/// request's JWT (ES256 signature with the test key, `kid`, `iss`, `aud`, `bid`, expiry: 401 otherwise), pages
/// Get Notification History (20 a page, `paginationToken`) and Get Transaction History v2 (`revision`), and
/// answers scheduled faults (a 429 with `Retry-After`, a 5xx, a 401) at the request numbers a test chooses.
/// The signed payloads it serves are the test's, signed with the test PKI.
public final class FakeAppStoreAPI: HTTPResponder {
    /// One stored notification: when Apple sent it and its signed payload.
    public struct Notification: Sendable {
        /// The notification's signedDate, ms (the history window filters on it).
        public var date: Int64
        /// The JWS.
        public var signedPayload: String

        /// Creates one.
        public init(date: Int64, signedPayload: String) {
            self.date = date
            self.signedPayload = signedPayload
        }
    }

    /// A fault answered instead of the request's normal answer.
    public enum Fault: Sendable {
        /// 429 with `Retry-After: seconds` and Apple's RateLimitExceededError.
        case rateLimited(retryAfter: Int)
        /// A 5xx with Apple's GeneralInternalRetryableError.
        case serverError(Int)
        /// 401 as for an expired token (the token is refused from then on).
        case expireToken
    }

    struct State {
        var notifications: [Notification] = []
        var transactions: [String: [String]] = [:]
        var faults: [Int: Fault] = [:]
        var requests = 0
        var refusedTokens = Set<String>()
        var paths: [String] = []
        var statuses: [Int] = []
        var historyBodies: [JSONValue] = []
        var testNotification: String?
        var testTokens = Set<String>()
        var orders: [String: [String]] = [:]
        var changes: [(path: String, body: JSONValue)] = []
    }

    /// The key the fake accepts tokens from (the public half of the test's `.p8` key).
    public let publicKey: ECPublicKey
    /// The accepted `kid`.
    public let keyId: String
    /// The accepted `iss`.
    public let issuerId: String
    /// The accepted `bid`.
    public let bundleId: String
    /// The environment its responses name.
    public let environment: LedgerEnvironment
    /// Items per page.
    public let pageSize: Int
    let state = Mutex(State())
    let clock: @Sendable () -> Int64
    private let server = Mutex<HTTPServer?>(nil)

    /// Creates a fake; ``start()`` serves it.
    public init(
        publicKey: ECPublicKey, keyId: String, issuerId: String, bundleId: String = TestPKI.bundleId,
        environment: LedgerEnvironment = .sandbox, pageSize: Int = 20,
        clock: @escaping @Sendable () -> Int64 = SystemClock.wallMilliseconds
    ) {
        self.publicKey = publicKey
        self.keyId = keyId
        self.issuerId = issuerId
        self.bundleId = bundleId
        self.environment = environment
        self.pageSize = pageSize
        self.clock = clock
    }

    /// Adds notifications to the history.
    public func add(_ notifications: [Notification]) {
        state.withLock { $0.notifications += notifications }
    }

    /// Adds signed transactions to a customer's transaction history, under every id that finds it.
    public func addTransactions(_ signed: [String], ids: [String]) {
        state.withLock { state in for id in ids { state.transactions[id, default: []] += signed } }
    }

    /// The signed transactions Look Up Order ID answers for `orderId` (the order id of Apple's receipt email).
    public func addOrder(_ orderId: String, signedTransactions: [String]) {
        state.withLock { $0.orders[orderId, default: []] += signedTransactions }
    }

    /// The signed TEST notification Request a Test Notification "sends".
    public func setTestNotification(_ signedPayload: String) {
        state.withLock { $0.testNotification = signedPayload }
    }

    /// Answers request number `number` (1-based, counting every request) with `fault`.
    public func schedule(_ fault: Fault, atRequest number: Int) {
        state.withLock { $0.faults[number] = fault }
    }

    /// The requests answered so far.
    public var requestCount: Int { state.withLock { $0.requests } }
    /// The status of every answer, in order.
    public var statuses: [Int] { state.withLock { $0.statuses } }
    /// The paths requested, in order.
    public var paths: [String] { state.withLock { $0.paths } }
    /// The JSON bodies of the Get Notification History requests, in order.
    public var historyBodies: [JSONValue] { state.withLock { $0.historyBodies } }
    /// The path and JSON body of every Send Consumption Information and Extend a Subscription Renewal Date Apple
    /// would have taken (a refused one is not among them).
    public var changes: [(path: String, body: JSONValue)] { state.withLock { $0.changes } }

    /// Serves on 127.0.0.1 at a free port; returns `http://127.0.0.1:PORT`.
    public func start() throws -> String {
        let server = try HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: self)
        let port = try server.start()
        self.server.withLock { $0 = server }
        return "http://127.0.0.1:\(port)"
    }

    /// Stops serving.
    public func stop() {
        server.withLock { $0?.shutdown(graceful: false) }
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        let fault = state.withLock { state -> Fault? in
            state.requests += 1
            state.paths.append(request.path)
            return state.faults.removeValue(forKey: state.requests)
        }
        let response = answer(request, fault: fault)
        state.withLock { $0.statuses.append(response.status.code) }
        return response
    }

    func answer(_ request: HTTPRequest, fault: Fault?) -> HTTPResponse {
        let token = request.headers["Authorization"].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        if case .expireToken? = fault, let token { state.withLock { _ = $0.refusedTokens.insert(token) } }
        guard let token, checkToken(token) else {
            return HTTPResponse(status: HTTPStatus(code: 401, reason: "Unauthorized"))
        }
        switch fault {
        case .rateLimited(let seconds)?:
            var response = Self.error(429, 4_290_000, "Rate limit exceeded.")
            response.headers.set("Retry-After", "\(seconds)")
            return response
        case .serverError(let status)?:
            return Self.error(status, 5_000_001, "An unknown retryable error occurred. Please try again.")
        default: break
        }
        if request.method == .post, request.path == "/inApps/v1/notifications/history" {
            return notificationHistory(request)
        }
        let historyPrefix = "/inApps/v2/history/"
        if request.method == .get, request.path.hasPrefix(historyPrefix) {
            return transactionHistory(String(request.path.dropFirst(historyPrefix.count)), request)
        }
        if request.method == .post, request.path == "/inApps/v1/notifications/test" {
            let token = "test-\(state.withLock { $0.requests })"
            state.withLock { _ = $0.testTokens.insert(token) }
            return HTTPResponse.json(.ok, .object(["testNotificationToken": .string(token)]))
        }
        let testPrefix = "/inApps/v1/notifications/test/"
        if request.method == .get, request.path.hasPrefix(testPrefix) {
            let token = String(request.path.dropFirst(testPrefix.count))
            let (known, signed) = state.withLock { ($0.testTokens.contains(token), $0.testNotification) }
            guard known, let signed else { return Self.error(404, 4_040_008, "Test notification not found.") }
            return HTTPResponse.json(
                .ok,
                .object([
                    "signedPayload": .string(signed),
                    "sendAttemptResults": .array([
                        .object(["attemptDate": .integer(clock()), "sendAttemptResult": "SUCCESS"])
                    ]),
                ]))
        }
        if request.method == .put, request.path.hasPrefix(Self.consumptionPrefix) {
            return consumption(request)
        }
        if request.method == .put,
            request.path.hasPrefix("/inApps/v1/transactions/consumption/")
                || request.path.hasPrefix("/inApps/v1/subscriptions/extend/")
        {
            guard let body = try? JSONValue.parse(request.body) else {
                return Self.error(400, 4_000_000, "An error occurred. Please try again.")
            }
            state.withLock { $0.changes.append((request.path, body)) }
            if request.path.hasPrefix("/inApps/v1/transactions/consumption/") {
                return HTTPResponse(status: HTTPStatus(code: 202, reason: "Accepted"))
            }
            let otid = String(request.path.dropFirst("/inApps/v1/subscriptions/extend/".count))
            let days = body["extendByDays"]?.int64 ?? 0
            return HTTPResponse.json(
                .ok,
                .object([
                    "originalTransactionId": .string(otid), "webOrderLineItemId": "1",
                    "effectiveDate": .integer(clock() + days * 86_400_000), "success": .bool((1...90).contains(days)),
                ]))
        }
        let orderPrefix = "/inApps/v1/lookup/"
        if request.method == .get, request.path.hasPrefix(orderPrefix) {
            // Look Up Order ID: status 0 with the order's transactions, 1 (and none) for an unknown order.
            let signed = state.withLock { $0.orders[String(request.path.dropFirst(orderPrefix.count))] }
            return HTTPResponse.json(
                .ok,
                .object([
                    "status": .integer(signed == nil ? 1 : 0),
                    "signedTransactions": .array((signed ?? []).map { .string($0) }),
                ]))
        }
        let infoPrefix = "/inApps/v1/transactions/"
        if request.method == .get, request.path.hasPrefix(infoPrefix) {
            let id = String(request.path.dropFirst(infoPrefix.count))
            guard let signed = state.withLock({ $0.transactions[id]?.last }) else {
                return Self.error(404, 4_040_010, "Transaction id not found.")
            }
            return HTTPResponse.json(.ok, .object(["signedTransactionInfo": .string(signed)]))
        }
        return Self.error(404, 4_040_000, "Not found.")
    }

    static func error(_ status: Int, _ code: Int64, _ message: String) -> HTTPResponse {
        HTTPResponse.json(
            HTTPStatus(code: status, reason: "Error"),
            .object(["errorCode": .integer(code), "errorMessage": .string(message)]))
    }
}
