import LedgerCore
import LedgerJSON
import LedgerSystem

/// How often and how patiently a failed call is sent again: 5xx, 429 and network failures are retried with
/// exponential backoff (a 429's or 503's `Retry-After` when given, as seconds or as an HTTP-date); other 4xx
/// never are.
public struct APIRetryPolicy: Sendable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    /// The first pause, in milliseconds; each further one doubles.
    public var baseDelayMilliseconds: Int
    /// The longest pause, `Retry-After` included, in milliseconds.
    public var maxDelayMilliseconds: Int

    /// Creates a policy.
    public init(maxAttempts: Int = 6, baseDelayMilliseconds: Int = 500, maxDelayMilliseconds: Int = 60_000) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelayMilliseconds = max(0, baseDelayMilliseconds)
        self.maxDelayMilliseconds = max(0, maxDelayMilliseconds)
    }

    /// The pause before attempt `attempt + 1`, honouring `retryAfter` (seconds) when the server sent it.
    public func delay(afterAttempt attempt: Int, retryAfter: Int?) -> Int {
        delay(afterAttempt: attempt, retryAfterMilliseconds: retryAfter.map { Int64(max(0, $0)) * 1000 })
    }

    /// The pause before attempt `attempt + 1`, honouring a `Retry-After` already read as milliseconds from now
    /// (``RetryAfter/milliseconds(_:now:)``), capped at ``maxDelayMilliseconds``.
    public func delay(afterAttempt attempt: Int, retryAfterMilliseconds: Int64?) -> Int {
        if let retryAfterMilliseconds {
            return Int(min(max(0, retryAfterMilliseconds), Int64(maxDelayMilliseconds)))
        }
        let doubled = baseDelayMilliseconds << min(max(0, attempt - 1), 16)
        return min(doubled, maxDelayMilliseconds)
    }
}

/// A client for the App Store Server API: authenticated with an in-app purchase key's JWT, over HTTPS, with
/// retries. The endpoints are in `AppStoreServerAPIClient+*.swift`; every signed datum they return is for the
/// caller to verify (the ledger verifies it as the webhook does).
public final class AppStoreServerAPIClient: Sendable {
    /// Apple's production server.
    public static let productionURL = "https://api.storekit.itunes.apple.com"
    /// Apple's sandbox server.
    public static let sandboxURL = "https://api.storekit-sandbox.itunes.apple.com"

    /// The server for an environment: sandbox for sandbox, production otherwise.
    public static func baseURL(for environment: LedgerEnvironment) -> String {
        environment == .sandbox ? sandboxURL : productionURL
    }

    /// Where requests go, without a trailing slash.
    public let baseURL: String
    /// Signs the tokens.
    public let tokens: APITokenIssuer
    /// Sends the requests.
    public let transport: any HTTPSTransport
    /// When to retry.
    public let retry: APIRetryPolicy
    private let pause: @Sendable (Int) -> Void
    private let clock: @Sendable () -> Int64
    private let retrying: @Sendable (RetryNotice) -> Void

    /// What a call that is about to be sent again says, so that an operator sees why it waits.
    public struct RetryNotice: Sendable {
        /// Why the last attempt failed.
        public var error: AppStoreAPIError
        /// The attempt that will follow the pause (2 for the first retry).
        public var nextAttempt: Int
        /// The attempts allowed in all.
        public var maxAttempts: Int
        /// The pause before it, in milliseconds.
        public var delayMilliseconds: Int
    }

    /// Creates a client. `baseURL` must be `https://…`, or `http://` to this machine (a test server: the token is
    /// never sent in clear over a network); `pause` waits between retries (milliseconds); `clock` is the time
    /// (ms since the epoch) a `Retry-After` date is counted from; `retrying` hears of each retry before its pause.
    public init(
        baseURL: String, tokens: APITokenIssuer, transport: any HTTPSTransport = HTTPSClient(),
        retry: APIRetryPolicy = APIRetryPolicy(),
        pause: @escaping @Sendable (Int) -> Void = HTTPSClient.pause(milliseconds:),
        clock: @escaping @Sendable () -> Int64 = SystemClock.wallMilliseconds,
        retrying: @escaping @Sendable (RetryNotice) -> Void = { _ in }
    ) throws(AppStoreAPIError) {
        guard baseURL.hasPrefix("https://") || (baseURL.hasPrefix("http://") && HTTPSClient.isLoopback(baseURL)) else {
            throw AppStoreAPIError(
                .invalidRequest,
                "the API base URL '\(HTTPSClient.origin(baseURL))' is not https://… (plain http:// only to this "
                    + "machine: 127.0.0.1, [::1] or localhost)")
        }
        var trimmed = baseURL
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.baseURL = trimmed
        self.tokens = tokens
        self.transport = transport
        self.retry = retry
        self.pause = pause
        self.clock = clock
        self.retrying = retrying
    }

    /// Sends one call and decodes its JSON answer (an empty body reads as `{}`), retrying as ``retry`` says
    /// and renewing the token once after a 401.
    public func call(
        _ method: String, _ path: String, query: [(name: String, value: String)] = [], body: JSONValue? = nil
    ) throws(AppStoreAPIError) -> JSONValue {
        var url = baseURL + path
        if !query.isEmpty {
            url +=
                "?"
                + query.map { Self.percentEncode($0.name) + "=" + Self.percentEncode($0.value) }.joined(separator: "&")
        }
        let bodyBytes = body?.serializedBytes()
        var attempt = 0
        var renewed = false
        while true {
            attempt += 1
            var headers: [(name: String, value: String)] = [
                ("Authorization", "Bearer " + (try tokens.token())), ("Accept", "application/json"),
                ("User-Agent", "ledger"),
            ]
            if bodyBytes != nil { headers.append(("Content-Type", "application/json")) }
            let response: HTTPSResponse
            do {
                response = try transport.send(HTTPSRequest(method: method, url: url, headers: headers, body: bodyBytes))
            } catch {
                guard error.isRetryable, attempt < retry.maxAttempts else { throw error }
                wait(retry.delay(afterAttempt: attempt, retryAfter: nil), after: error, attempt: attempt)
                continue
            }
            if (200..<300).contains(response.status) {
                guard !response.body.isEmpty else { return .object([:]) }
                do {
                    return try JSONValue.parse(response.body)
                } catch {
                    throw AppStoreAPIError(
                        .invalidResponse, "\(method) \(path) answered \(response.status) with a body that is not JSON")
                }
            }
            if response.status == 401, !renewed {
                // A token Apple no longer takes (expired, clock skew): sign a new one and try once more.
                tokens.invalidate()
                renewed = true
                attempt -= 1
                continue
            }
            let error = Self.apiError(method, path, response)
            guard error.isRetryable, attempt < retry.maxAttempts else { throw error }
            let retryAfter = response.header("Retry-After").flatMap { RetryAfter.milliseconds($0, now: clock()) }
            wait(retry.delay(afterAttempt: attempt, retryAfterMilliseconds: retryAfter), after: error, attempt: attempt)
        }
    }

    /// Says why attempt `attempt` is sent again, then pauses `delay` milliseconds.
    private func wait(_ delay: Int, after error: AppStoreAPIError, attempt: Int) {
        retrying(
            RetryNotice(
                error: error, nextAttempt: attempt + 1, maxAttempts: retry.maxAttempts, delayMilliseconds: delay))
        pause(delay)
    }

    /// Apple's error answer as an error: the status, `errorCode`, its name and `errorMessage`.
    static func apiError(_ method: String, _ path: String, _ response: HTTPSResponse) -> AppStoreAPIError {
        let json = try? JSONValue.parse(response.body)
        let code = json?["errorCode"]?.int64
        let message = json?["errorMessage"]?.string
        var text = "\(method) \(path) answered HTTP \(response.status)"
        if let code {
            text += ", errorCode \(code)"
            if let name = AppStoreAPIErrorNames.name(for: code) { text += " (\(name))" }
        }
        if let message { text += ": \(message)" }
        if response.status == 401 {
            text += "; Apple refused the token: check --key-id, --issuer-id, the key file and the bundle id"
        }
        return AppStoreAPIError(
            .apiError, text, httpStatus: response.status, errorCode: code, errorMessage: message)
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    public static func percentEncode(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
