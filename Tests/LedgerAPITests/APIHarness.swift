import LedgerAPI
import LedgerCore
import LedgerHTTP
import LedgerJSON
import LedgerService
import LedgerTesting

/// A ledger API over a fresh data directory, callable in-process or over loopback.
final class APIHarness: Sendable {
    let directory = TemporaryDirectory()
    let pki = TestPKI.shared
    let api: LedgerAPI
    let application: HTTPApplication

    init(
        readToken: String? = nil, adminToken: String? = nil, maxWaitingFeeds: Int = 32,
        heavyReads: AdmissionGate = AdmissionGate(concurrency: 4, queueLimit: 32)
    ) throws {
        let ledger = try Ledger.openWriter(at: directory.path, environment: .sandbox)
        let verifier = try pki.verifier()
        let pipeline = IngestPipeline(
            ledger: ledger, verifier: verifier, quarantine: Quarantine(dataDirectory: directory.path))
        api = LedgerAPI(
            pipeline: pipeline, readToken: readToken, adminToken: adminToken,
            metrics: LedgerMetrics(ledger: ledger, verifier: verifier), maxWaitingFeeds: maxWaitingFeeds,
            heavyReads: heavyReads)
        application = api.application()
    }

    deinit { api.ledger.close() }

    /// A request answered in-process.
    func respond(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [])
        throws -> HTTPResponse
    {
        application.respond(to: try HTTPRequest(method: method, target: target, headers: headers, body: body))
    }

    /// A webhook body for a signed notification.
    func notification(
        type: String = "SUBSCRIBED", subtype: String? = "INITIAL_BUY", uuid: Int = 1,
        transactionId: String = "2000000000000002"
    ) throws -> [UInt8] {
        TestPKI.body(
            try pki.signedNotification(
                type: type, subtype: subtype, uuid: TestPKI.Payloads.uuid(uuid),
                transaction: TestPKI.Payloads.transaction(transactionId: transactionId)))
    }

    /// Posts `count` renewals (notification UUIDs 10…, transactions 3000…) to the webhook: records 1…count.
    func postRenewals(_ count: Int) throws {
        for i in 0..<count {
            _ = try respond(
                .post, "/webhooks/apple",
                body: try notification(type: "DID_RENEW", subtype: nil, uuid: 10 + i, transactionId: "300\(i)"))
        }
    }
}

extension HTTPResponse {
    var json: JSONValue? { try? JSONValue.parse(body) }
}
