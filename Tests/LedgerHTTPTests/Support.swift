import LedgerHTTP
import LedgerJSON
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A demo application shaped like the ledger's: a webhook, an authenticated read with a parameter,
/// an admin endpoint, health, and handlers that fail in the ways real ones do.
func makeTestApplication(readToken: String? = "read-secret", adminToken: String? = nil) -> HTTPApplication {
    var router = Router()
    let reads = BearerAuth(token: readToken)
    let admin = BearerAuth(
        token: adminToken, whenUnconfigured: .deny(message: "admin endpoints are disabled; start with --admin-token"))
    router.get("/healthz") { _ in .json(.ok, #"{"status":"ok","head":0}"#) }
    router.post("/webhooks/apple") { request in
        guard request.bodyText.contains("signedPayload") else {
            throw HTTPError.badRequest("the body is not an App Store notification")
        }
        return .json(.ok, #"{"accepted":true,"bytes":\#(request.body.count)}"#)
    }
    router.get("/v1/users/{id}/entitlement", middlewares: [reads]) { request in
        let at = request.query("at") ?? "now"
        return .json(
            .ok, #"{"userId":\#(JSONValue.quoted(request.parameter("id") ?? "")),"at":\#(JSONValue.quoted(at))}"#)
    }
    router.get("/v1/users/me/entitlement", middlewares: [reads]) { _ in .text(.ok, "me") }
    router.post("/v1/admin/link", middlewares: [admin]) { _ in .json(.ok, #"{"linked":true}"#) }
    router.get("/boom") { _ in throw TestFailure(detail: "secret internal detail") }
    router.get("/storage-down") { _ in throw StorageDown() }
    router.get("/sleep") { request in
        let milliseconds = Int(request.query("ms") ?? "0") ?? 0
        usleep(UInt32(milliseconds * 1000))
        return .text(.ok, "slept \(milliseconds)")
    }
    router.get("/big") { request in
        // `mib` MiB of body: for slow readers and the send budget.
        let mebibytes = min(64, Int(request.query("mib") ?? "1") ?? 1)
        return HTTPResponse(status: .ok, body: [UInt8](repeating: 0x61, count: mebibytes << 20))
    }
    return HTTPApplication(router: router)
}

struct TestFailure: Error {
    var detail: String
}

/// An error from another module that knows its HTTP answer.
struct StorageDown: HTTPErrorConvertible {
    var httpError: HTTPError {
        HTTPError(.serviceUnavailable, code: .unavailable, message: "the log cannot be written; Apple will retry")
    }
}

/// Collects access-log lines in memory.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    var accessLog: AccessLog { AccessLog(write: { line in self.lines.withLock { $0.append(line) } }) }
}

/// A server on an ephemeral loopback port for one test; shut down with `stop()`.
struct TestServer {
    let server: HTTPServer
    let port: UInt16

    init(
        application: HTTPApplication = makeTestApplication(), timeouts: HTTPServer.Timeouts = HTTPServer.Timeouts(),
        maxConnections: Int = 64, limits: HTTPLimits = HTTPLimits(), accessLog: AccessLog? = nil,
        metrics: ServerMetrics? = nil, maxBufferedBytes: Int = 64 << 20
    ) throws {
        server = try HTTPServer(
            configuration: .init(
                host: "127.0.0.1", port: 0, limits: limits, timeouts: timeouts, maxConnections: maxConnections,
                accessLog: accessLog, metrics: metrics, maxBufferedBytes: maxBufferedBytes),
            responder: application)
        port = try server.start()
    }

    func client(timeout: Duration = .seconds(10)) -> HTTPClient { HTTPClient(port: port, timeout: timeout) }

    func stop(graceful: Bool = true) { server.shutdown(graceful: graceful) }
}

/// How a route test reaches the application.
enum Transport: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case inProcess, loopback
    var testDescription: String { rawValue }
}

/// Sends one request either straight to the responder or over a loopback socket.
func exchange(
    _ transport: Transport, _ application: HTTPApplication, _ method: HTTPMethod, _ target: String,
    headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []
) throws -> HTTPResponse {
    switch transport {
    case .inProcess:
        var headers = headers
        if !headers.contains("Host") { headers.add("Host", "test") }
        return application.respond(
            to: try HTTPRequest(method: method, target: target, headers: headers, body: body))
    case .loopback:
        let server = try TestServer(application: application)
        defer { server.stop() }
        return try server.client().send(method, target, headers: headers, body: body)
    }
}

/// The `status` and `message` of a JSON error body (a tiny extraction for assertions).
func errorStatus(of response: HTTPResponse) -> String? {
    let text = response.bodyText
    guard let range = text.firstRange(of: #"{"error":{"status":""#) else { return nil }
    let rest = text[range.upperBound...]
    return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
}

func milliseconds(since start: timespec) -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1_000_000
}

func monotonicNow() -> timespec {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return now
}
