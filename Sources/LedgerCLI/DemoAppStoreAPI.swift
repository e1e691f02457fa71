import LedgerAppStore
import LedgerAppStoreTestKit
import LedgerCrypto
import LedgerHTTP
import LedgerJSON
import LedgerSystem
import Synchronization

/// The demo's own App Store Server API, in-process on loopback: it holds the simulation's signed notifications
/// as Apple would and answers Get Notification History as Apple documents it (the window by the notifications'
/// dates, 20 a page, `paginationToken`, `hasMore`), after checking each request's JWT as Apple does (ES256 by
/// the demo's key, `kid`, `iss`, `aud` appstoreconnect-v1, `bid`, not expired, at most an hour long).
///
/// It is not the test kit's fake (`LedgerTesting` is never linked into the product): only what the demo's
/// recovery needs, on the same HTTP server the ledger serves with. Get Transaction History answers 404, as
/// Apple does for a transaction it does not know, and the pull skips it: every transaction the demo recovers is
/// carried by its notification.
final class DemoAppStoreAPI: HTTPResponder {
    /// One notification Apple holds: its `signedDate` (ms) and its JWS.
    typealias Notification = (date: Int64, signedPayload: String)

    static let pageSize = 20
    let publicKey: ECPublicKey
    let keyId: String
    let issuerId: String
    let bundleId: String
    /// Oldest first.
    let notifications: [Notification]
    private let counters = Mutex((requests: 0, refused: 0))
    private let server = Mutex<HTTPServer?>(nil)

    init(publicKey: ECPublicKey, keyId: String, issuerId: String, bundleId: String, notifications: [Notification]) {
        self.publicKey = publicKey
        self.keyId = keyId
        self.issuerId = issuerId
        self.bundleId = bundleId
        self.notifications = notifications.sorted { $0.date < $1.date }
    }

    /// The requests answered so far, and how many of them were refused for their token.
    var requests: (answered: Int, refused: Int) { counters.withLock { ($0.requests, $0.refused) } }

    /// Serves on 127.0.0.1 at a free port; returns `http://127.0.0.1:PORT`.
    func start() throws(CLIError) -> String {
        do {
            let server = try HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: self)
            let port = try server.start()
            self.server.withLock { $0 = server }
            return "http://127.0.0.1:\(port)"
        } catch {
            throw CLIError(.internalError, "cannot start the demo's App Store Server API: \(error.message)")
        }
    }

    /// Stops serving.
    func stop() {
        server.withLock { $0?.shutdown(graceful: false) }
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        let token = request.headers["Authorization"].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        let accepted = token.map(isAcceptable) ?? false
        counters.withLock {
            $0.requests += 1
            if !accepted { $0.refused += 1 }
        }
        guard accepted else { return HTTPResponse(status: HTTPStatus(code: 401, reason: "Unauthorized")) }
        if request.method == .post, request.path == "/inApps/v1/notifications/history" {
            return history(request)
        }
        if request.method == .get, request.path.hasPrefix("/inApps/v2/history/") {
            return Self.error(404, 4_040_010, "Transaction id not found.")
        }
        return Self.error(404, 4_040_000, "Not found.")
    }

    /// Get Notification History: one page of the window.
    private func history(_ request: HTTPRequest) -> HTTPResponse {
        guard let body = try? JSONValue.parse(request.body), let start = body["startDate"]?.int64,
            let end = body["endDate"]?.int64
        else { return Self.error(400, 4_000_000, "An error occurred. Please try again.") }
        guard start < end else { return Self.error(400, 4_000_013, "Start date after end date.") }
        var offset = 0
        if let token = request.query("paginationToken") {
            guard let parsed = Int(token), parsed >= 0 else {
                return Self.error(400, 4_000_014, "Invalid pagination token.")
            }
            offset = parsed
        }
        let first = notifications.partitioningIndex { $0.date >= start }
        let past = notifications.partitioningIndex { $0.date >= end }
        let window = notifications[first..<max(first, past)]
        let page = window.dropFirst(offset).prefix(Self.pageSize)
        let hasMore = offset + page.count < window.count
        let pageBody = NotificationHistoryPage.json(
            page.map { ($0.date, $0.signedPayload) }, paginationToken: hasMore ? String(offset + page.count) : nil)
        return HTTPResponse.json(.ok, pageBody)
    }

    /// Whether Apple would take this bearer token.
    private func isAcceptable(_ token: String) -> Bool {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64.decodeURL(String(parts[0])),
            let claimBytes = Base64.decodeURL(String(parts[1])), let signature = Base64.decodeURL(String(parts[2])),
            let header = try? JSONValue.parse(headerBytes), let claims = try? JSONValue.parse(claimBytes),
            let raw = try? ECDSASignature(rawRepresentation: signature),
            header["alg"]?.string == "ES256", header["kid"]?.string == keyId, header["typ"]?.string == "JWT",
            publicKey.isValidSignature(raw, for: Array((parts[0] + "." + parts[1]).utf8), digest: .sha256)
        else { return false }
        let now = SystemClock.wallMilliseconds() / 1000
        guard claims["iss"]?.string == issuerId, claims["aud"]?.string == "appstoreconnect-v1",
            claims["bid"]?.string == bundleId, let issued = claims["iat"]?.int64, let expires = claims["exp"]?.int64
        else { return false }
        return expires > now && issued <= now + 60 && expires - issued <= 3600
    }

    private static func error(_ status: Int, _ code: Int64, _ message: String) -> HTTPResponse {
        HTTPResponse.json(
            HTTPStatus(code: status, reason: "Error"),
            .object(["errorCode": .integer(code), "errorMessage": .string(message)]))
    }
}
