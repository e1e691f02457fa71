import LedgerAppStore
import LedgerCore
import LedgerHTTP
import LedgerJSON
import LedgerService
import LedgerSystem
import Synchronization

/// The ledger's HTTP API: the App Store webhook, the backend's read endpoints, the catch-up feed,
/// operator endpoints, health, metrics and the OpenAPI document (``OpenAPIDocument``).
public struct LedgerAPI: Sendable {
    /// The ledger (opened as the writer).
    public let ledger: Ledger
    /// Verify → map → append.
    public let pipeline: IngestPipeline
    /// The bearer token for read endpoints; nil leaves them open.
    public let readToken: String?
    /// The bearer token for admin endpoints; nil turns them off.
    public let adminToken: String?
    /// Ledger and HTTP metrics.
    public let metrics: LedgerMetrics
    /// The clock for "now" (milliseconds since the epoch).
    public let clock: @Sendable () -> Int64
    /// Set when the server begins to shut down: feed requests waiting for events answer at once.
    let draining = DrainFlag()
    /// The most feed requests that wait for events at once; one more answers at once, as with `wait=0`.
    public let maxWaitingFeeds: Int
    /// How many feed requests are waiting now.
    let waitingFeeds = WaitingCount()
    /// Admission for the heavy reads (feed pages, histories): a few at once, a bounded queue, 503 beyond it, so
    /// they cannot take every thread and core.
    public let heavyReads: AdmissionGate

    /// Which routes a listener serves.
    public enum Surface: Sendable {
        /// Every route, on one address.
        case all
        /// `POST /webhooks/apple` and `GET /healthz` only: the address Apple reaches, behind the proxy.
        case webhook
        /// Everything but the webhook (reads, feed, operator endpoints, metrics, OpenAPI) and `GET /healthz`:
        /// the backend's address, private.
        case api
    }

    /// Creates the API. `heavyReads` admits feed pages and histories (4 at once and 32 waiting by default).
    /// `maxWaitingFeeds` bounds the long polls held open at once (each holds a connection, and
    /// the server's connection cap must leave room for Apple's deliveries): as many as `heavyReads` can queue
    /// behind its running pages, so that one record waking them all finds each a place to build its page.
    public init(
        pipeline: IngestPipeline, readToken: String?, adminToken: String?, metrics: LedgerMetrics,
        clock: @escaping @Sendable () -> Int64 = SystemClock.wallMilliseconds, maxWaitingFeeds: Int = 32,
        heavyReads: AdmissionGate = AdmissionGate(concurrency: 4, queueLimit: 32)
    ) {
        self.heavyReads = heavyReads
        self.ledger = pipeline.ledger
        self.pipeline = pipeline
        self.readToken = readToken
        self.adminToken = adminToken
        self.metrics = metrics
        self.clock = clock
        self.maxWaitingFeeds = max(0, maxWaitingFeeds)
    }

    /// Ends every feed request's wait for events, now and from now on: the server is shutting down (wire it to
    /// ``LedgerHTTP/HTTPServer/Configuration/onDrain``), and a long-poll must not hold the shutdown for its whole
    /// wait. Each answers with the events it has, usually none, and the cursor to continue from.
    public func endLongPolls() {
        draining.set()
    }

    /// The routes of `surface` (every route by default).
    public func router(serving surface: Surface = .all) -> Router {
        let read: [any HTTPMiddleware] = [BearerAuth(token: readToken, realm: "ledger-read")]
        let admin: [any HTTPMiddleware] = [
            BearerAuth(
                token: adminToken, realm: "ledger-admin",
                whenUnconfigured: .deny(
                    message:
                        "admin endpoints are off: start the server with --admin-token-file F (or $LEDGER_ADMIN_TOKEN)"))
        ]
        var router = Router()
        if surface != .api {
            router.post("/webhooks/apple") { request in try webhook(request) }
        }
        router.get("/healthz") { [metrics, clock] _ in
            var object: JSONObject = ["status": "ok", "head": .integer(Int64(clamping: ledger.head.seq))]
            // Degraded (still 200: reads work) while webhook appends fail (a full or failing disk).
            if let failure = metrics.logWriteFailure {
                object["status"] = "degraded"
                object["log"] = .object(["writable": false, "error": .string(failure)])
            }
            // With `serve --reconcile-every`: degraded (still 200: the webhook works) once pulls fail too long.
            if let reconcile = metrics.reconcileHealthReport(now: clock()) {
                if reconcile.degraded { object["status"] = "degraded" }
                object["reconcile"] = reconcile.report
            }
            return .json(.object(object))
        }
        guard surface != .webhook else { return router }
        let heavy = read + [heavyReads as any HTTPMiddleware]
        router.get("/v1/users/{id}/entitlement", middlewares: read) { request in
            try entitlement(request, query: .user(try userId(request)))
        }
        router.get("/v1/accounts/{uuid}/entitlement", middlewares: read) { request in
            try entitlement(request, query: try account(request))
        }
        router.get("/v1/subscriptions/{originalTransactionId}/entitlement", middlewares: read) { request in
            try entitlement(request, query: try subscription(request))
        }
        router.get("/v1/users/{id}/history", middlewares: heavy) { request in
            try history(request, query: .user(try userId(request)))
        }
        router.get("/v1/accounts/{uuid}/history", middlewares: heavy) { request in
            try history(request, query: try account(request))
        }
        router.get("/v1/subscriptions/{originalTransactionId}/history", middlewares: heavy) { request in
            try history(request, query: try subscription(request))
        }
        router.get("/v1/events", middlewares: read) { request in try events(request) }
        router.get("/v1/digest", middlewares: read) { _ in digest() }
        router.post("/v1/corrections", middlewares: admin) { request in try correction(request) }
        router.post("/v1/links", middlewares: admin) { request in try link(request) }
        router.post("/v1/voids", middlewares: admin) { request in try void(request) }
        router.get("/metrics", middlewares: read) { _ in
            var response = HTTPResponse.text(.ok, metrics.renderPrometheus())
            response.headers.set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            return response
        }
        router.get("/openapi.yaml") { _ in
            var response = HTTPResponse.text(.ok, OpenAPIDocument.yaml)
            response.headers.set("Content-Type", "application/yaml; charset=utf-8")
            return response
        }
        return router
    }

    /// The responder for `surface`: its routes behind the error middleware.
    public func application(serving surface: Surface = .all) -> HTTPApplication {
        HTTPApplication(router: router(serving: surface))
    }
}

/// A flag set once, read by any thread.
final class DrainFlag: Sendable {
    private let value = Atomic<Bool>(false)

    /// Whether it was set.
    var isSet: Bool { value.load(ordering: .acquiring) }

    /// Sets it.
    func set() { value.store(true, ordering: .releasing) }
}

/// A count of requests in a bounded section, shared by every connection thread.
final class WaitingCount: Sendable {
    private let count = Atomic<Int>(0)

    /// Enters the section unless `limit` requests are in it already; true when entered (then ``leave()``).
    func enter(limit: Int) -> Bool {
        if count.add(1, ordering: .acquiringAndReleasing).newValue <= limit { return true }
        count.subtract(1, ordering: .acquiringAndReleasing)
        return false
    }

    /// Leaves the section.
    func leave() { count.subtract(1, ordering: .acquiringAndReleasing) }
}
