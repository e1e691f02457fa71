import LedgerAppStore
import LedgerAppStoreAPI
import LedgerCrypto
import LedgerJSON
import LedgerTesting
import Synchronization
import Testing

/// Answers from a script, recording the requests.
final class ScriptedTransport: HTTPSTransport {
    let script: Mutex<[HTTPSResponse]>
    let sent = Mutex<[HTTPSRequest]>([])

    init(_ responses: [HTTPSResponse]) { script = Mutex(responses) }

    func send(_ request: HTTPSRequest) throws(AppStoreAPIError) -> HTTPSResponse {
        sent.withLock { $0.append(request) }
        return script.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] }
    }
}

/// The pauses a client asked for, in milliseconds.
final class Pauses: Sendable {
    let recorded = Mutex<[Int]>([])
    var all: [Int] { recorded.withLock { $0 } }
}

@Suite struct AppStoreServerAPIClientTests {
    static let key = APITokenIssuerTests.key
    static let fixture = try! APIHistoryFixture(count: 45, subscriptions: 5)

    /// A client of `base`, its pauses recorded instead of slept.
    static func client(_ base: String, transport: any HTTPSTransport = HTTPSClient())
        throws -> (AppStoreServerAPIClient, Pauses)
    {
        let pauses = Pauses()
        let client = try AppStoreServerAPIClient(
            baseURL: base, tokens: APITokenIssuer(key: key, bundleId: TestPKI.bundleId), transport: transport,
            pause: { milliseconds in pauses.recorded.withLock { $0.append(milliseconds) } })
        return (client, pauses)
    }

    static func fake() -> FakeAppStoreAPI {
        FakeAppStoreAPI(publicKey: key.privateKey.publicKey, keyId: key.keyId, issuerId: key.issuerId)
    }

    static let window = NotificationHistoryRequest(
        startDate: APIHistoryFixture.start, endDate: APIHistoryFixture.start + 86_400_000)

    @Test func followsEveryPageAndRetriesRateLimitsAndServerErrorsAsTold() throws {
        let fake = Self.fake()
        Self.fixture.serve(from: fake)
        let url = try fake.start()
        defer { fake.stop() }
        fake.schedule(.serverError(503), atRequest: 1)
        fake.schedule(.rateLimited(retryAfter: 7), atRequest: 3)
        let (client, pauses) = try Self.client(url)
        let items = try client.notificationHistory(Self.window)
        #expect(items.map(\.signedPayload) == Self.fixture.items.map(\.signedPayload))
        #expect(fake.statuses == [503, 200, 429, 200, 200])
        // The 503 waits the first backoff step; the 429 waits its Retry-After.
        #expect(pauses.all == [500, 7000])
        #expect(fake.historyBodies.first?["startDate"] == .integer(Self.window.startDate))
        #expect(fake.historyBodies.first?["endDate"] == .integer(Self.window.endDate))
    }

    @Test func anExpiredTokenIsRenewedOnce() throws {
        let fake = Self.fake()
        Self.fixture.serve(from: fake)
        let url = try fake.start()
        defer { fake.stop() }
        fake.schedule(.expireToken, atRequest: 1)
        let (client, pauses) = try Self.client(url)
        let page = try client.notificationHistoryPage(Self.window)
        #expect(page.items.count == 20)
        #expect(page.hasMore)
        #expect(fake.statuses == [401, 200])
        #expect(pauses.all.isEmpty)
    }

    @Test func transactionHistoryFollowsRevisions() throws {
        let fake = Self.fake()
        let signed = Self.fixture.items.map(\.signedTransaction)
        fake.addTransactions(signed, ids: ["3000000000000000"])
        let url = try fake.start()
        defer { fake.stop() }
        let (client, _) = try Self.client(url)
        let pages = try client.transactionHistory(transactionId: "3000000000000000")
        #expect(pages.count == 3)
        #expect(pages.flatMap(\.signedTransactions) == signed)
        #expect(pages.last?.hasMore == false)
        #expect(fake.paths.allSatisfy { $0 == "/inApps/v2/history/3000000000000000" })
    }

    @Test func anotherClientErrorIsNotRetriedAndNamesApplesCode() throws {
        let body = JSONValue.object(["errorCode": 4_000_006, "errorMessage": "Invalid transaction id."])
        let transport = ScriptedTransport([HTTPSResponse(status: 400, body: body.serializedBytes())])
        let (client, pauses) = try Self.client("https://api.example.test", transport: transport)
        do {
            _ = try client.transactionHistoryPage(transactionId: "x")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .apiError)
            #expect(error.httpStatus == 400)
            #expect(error.errorCode == 4_000_006)
            #expect(error.errorName == "InvalidTransactionIdError")
            #expect(error.message.contains("errorCode 4000006 (InvalidTransactionIdError): Invalid transaction id."))
            // The token is never in a message.
            #expect(!error.message.contains("Bearer"))
        }
        #expect(transport.sent.withLock { $0.count } == 1)
        #expect(pauses.all.isEmpty)
    }

    @Test func serverErrorsAreRetriedWithGrowingBackoffThenReported() throws {
        let transport = ScriptedTransport([HTTPSResponse(status: 500)])
        let (client, pauses) = try Self.client("https://api.example.test/", transport: transport)
        #expect(throws: AppStoreAPIError.self) { try client.notificationHistoryPage(Self.window) }
        #expect(transport.sent.withLock { $0.count } == 6)
        #expect(pauses.all == [500, 1000, 2000, 4000, 8000])
        // The observer hears of each retry, before its pause.
        let notices = Mutex<[AppStoreServerAPIClient.RetryNotice]>([])
        let observed = try AppStoreServerAPIClient(
            baseURL: "https://api.example.test", tokens: APITokenIssuer(key: Self.key, bundleId: TestPKI.bundleId),
            transport: transport, pause: { _ in }, retrying: { notice in notices.withLock { $0.append(notice) } })
        #expect(throws: AppStoreAPIError.self) { try observed.notificationHistoryPage(Self.window) }
        let heard = notices.withLock { $0 }
        #expect(heard.map(\.nextAttempt) == [2, 3, 4, 5, 6])
        #expect(heard.map(\.delayMilliseconds) == [500, 1000, 2000, 4000, 8000])
        #expect(heard.allSatisfy { $0.error.httpStatus == 500 && $0.maxAttempts == 6 })
        let request = transport.sent.withLock { $0[0] }
        #expect(request.url == "https://api.example.test/inApps/v1/notifications/history")
        #expect(request.method == "POST")
        #expect(request.headers.contains { $0.name == "Authorization" && $0.value.hasPrefix("Bearer ") })
    }

    @Test func aLongWindowIsAskedForInPartsAppleTakes() throws {
        let fake = Self.fake()
        let url = try fake.start()
        defer { fake.stop() }
        let (client, _) = try Self.client(url)
        let day: Int64 = 86_400_000
        let long = NotificationHistoryRequest(startDate: 0, endDate: 400 * day, onlyFailures: true)
        #expect(try client.notificationHistory(long).isEmpty)
        let bodies = fake.historyBodies
        #expect(bodies.map { $0["startDate"]?.int64 } == [0, 180 * day, 360 * day])
        #expect(bodies.map { $0["endDate"]?.int64 } == [180 * day, 360 * day, 400 * day])
        #expect(bodies.allSatisfy { $0["onlyFailures"] == .bool(true) })
    }

    @Test func paginationTokensAreSentAsQueryParameters() throws {
        let page = JSONValue.object(["notificationHistory": .array([]), "hasMore": false])
        let transport = ScriptedTransport([HTTPSResponse(status: 200, body: page.serializedBytes())])
        let (client, _) = try Self.client("https://api.example.test", transport: transport)
        _ = try client.notificationHistoryPage(Self.window, paginationToken: "a+b/c=")
        #expect(
            transport.sent.withLock { $0[0].url }
                == "https://api.example.test/inApps/v1/notifications/history?paginationToken=a%2Bb%2Fc%3D")
    }

    /// A 200 that is not Apple's page (a proxy's empty answer) fetched nothing: it must not read as a window
    /// without notifications.
    @Test(arguments: ["", "{}", #"{"notificationHistory":{"a":1},"hasMore":false}"#, #"{"hasMore":false}"#])
    func aSuccessWithoutTheHistoryArrayIsRefused(body: String) throws {
        let transport = ScriptedTransport([HTTPSResponse(status: 200, body: Array(body.utf8))])
        let (client, _) = try Self.client("https://api.example.test", transport: transport)
        #expect(throws: AppStoreAPIError(.invalidResponse, "")) { try client.notificationHistory(Self.window) }
    }
}

@Suite struct AppStoreServerAPIChangeTests {
    @Test func extensionsAndConsumptionAreSentAsAppleDocumentsThem() throws {
        let transport = ScriptedTransport([HTTPSResponse(status: 200, body: Array("{}".utf8))])
        let (client, _) = try AppStoreServerAPIClientTests.client("https://api.example.test", transport: transport)
        _ = try client.extendRenewalDate(
            originalTransactionId: "2000000000000001", extendByDays: 7, extendReasonCode: 1,
            requestIdentifier: "b2e3c1a4-0000-4000-8000-000000000001")
        _ = try client.massExtendRenewalDate(
            productId: "com.visla.gps.monthly_3", extendByDays: 3, extendReasonCode: 3,
            requestIdentifier: "b2e3c1a4-0000-4000-8000-000000000002", storefrontCountryCodes: ["ITA"])
        _ = try client.massExtensionStatus(
            productId: "com.visla.gps.monthly_3", requestIdentifier: "b2e3c1a4-0000-4000-8000-000000000002")
        try client.sendConsumptionInformation(
            transactionId: "2000000000000002",
            ConsumptionRequest(customerConsented: true, deliveryStatus: "DELIVERED", sampleContentProvided: false),
            autoRenewable: true)
        let sent = transport.sent.withLock { $0 }
        #expect(sent.map(\.method) == ["PUT", "POST", "GET", "PUT"])
        #expect(
            sent.map(\.url) == [
                "https://api.example.test/inApps/v1/subscriptions/extend/2000000000000001",
                "https://api.example.test/inApps/v1/subscriptions/extend/mass",
                "https://api.example.test/inApps/v1/subscriptions/extend/mass/com.visla.gps.monthly_3/"
                    + "b2e3c1a4-0000-4000-8000-000000000002",
                "https://api.example.test/inApps/v2/transactions/consumption/2000000000000002",
            ])
        let extend = try JSONValue.parse(sent[0].body ?? [])
        #expect(extend["extendByDays"] == .integer(7))
        #expect(extend["extendReasonCode"] == .integer(1))
        let mass = try JSONValue.parse(sent[1].body ?? [])
        #expect(mass["storefrontCountryCodes"] == .array(["ITA"]))
        #expect(
            try JSONValue.parse(sent[3].body ?? [])
                == .object(["customerConsented": true, "deliveryStatus": "DELIVERED", "sampleContentProvided": false]))
    }

    @Test func aConsumptionRequestAppleWouldRefuseIsNeverSent() throws {
        let transport = ScriptedTransport([HTTPSResponse(status: 202)])
        let (client, _) = try AppStoreServerAPIClientTests.client("https://api.example.test", transport: transport)
        let delivered = ConsumptionRequest(
            customerConsented: true, deliveryStatus: "DELIVERED", sampleContentProvided: true)
        for (request, autoRenewable, message) in [
            (
                ConsumptionRequest(customerConsented: false, deliveryStatus: "DELIVERED", sampleContentProvided: true),
                false, "customerConsented must be true"
            ),
            (
                ConsumptionRequest(customerConsented: true, deliveryStatus: "LOST", sampleContentProvided: true), false,
                "deliveryStatus must be one of"
            ),
            (
                ConsumptionRequest(
                    customerConsented: true, deliveryStatus: "DELIVERED", sampleContentProvided: true,
                    consumptionPercentage: 50_000), true, "ConsumptionPercentageAutoRenewableSubscriptionError"
            ),
            (
                ConsumptionRequest(
                    customerConsented: true, deliveryStatus: "UNDELIVERED_OTHER", sampleContentProvided: true,
                    consumptionPercentage: 10), false, "UndeliveredConsumptionPercentageNonZeroError"
            ),
            (
                ConsumptionRequest(
                    customerConsented: true, deliveryStatus: "DELIVERED", sampleContentProvided: true,
                    refundPreference: "MAYBE"), false, "refundPreference must be one of"
            ),
        ] {
            #expect(throws: AppStoreAPIError.self) {
                try client.sendConsumptionInformation(transactionId: "1", request, autoRenewable: autoRenewable)
            }
            do {
                try request.check(autoRenewable: autoRenewable)
            } catch {
                #expect(error.message.contains(message), "\(error.message)")
            }
        }
        #expect(transport.sent.withLock { $0.isEmpty })
        try client.sendConsumptionInformation(transactionId: "1", delivered, autoRenewable: true)
        #expect(transport.sent.withLock { $0.count } == 1)
        // The V1 body's fields are not the current endpoint's.
        #expect(throws: AppStoreAPIError.self) {
            try ConsumptionRequest(
                json: .object([
                    "customerConsented": true, "deliveryStatus": "DELIVERED",
                    "sampleContentProvided": true, "playTime": 2,
                ]))
        }
    }
}
