import LedgerAppStoreAPI
import LedgerHTTP
import LedgerJSON
import LedgerTesting
import Testing

@Suite struct HTTPSClientTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080/x", true), ("http://127.3.2.1", true), ("http://localhost:9/", true),
        ("http://LOCALHOST", true), ("http://[::1]:443/inApps", true), ("http://user@127.0.0.1/", true),
        ("http://127.0.0.1.example.com/", false), ("http://localhost.example.com/", false),
        ("http://example.com/", false), ("http://10.0.0.1:8080", false), ("http://[::2]/", false),
        ("http://127.0.0.256/", false), ("http://128.0.0.1/", false),
    ])
    func loopbackIsThisMachineExactly(url: String, loopback: Bool) {
        #expect(HTTPSClient.isLoopback(url) == loopback, "\(url)")
    }

    @Test(arguments: ["http://api.storekit.itunes.apple.com", "http://127.0.0.1.nip.io:80", "ftp://127.0.0.1"])
    func aClientSendsItsTokenInClearOnlyToThisMachine(baseURL: String) {
        let tokens = APITokenIssuer(key: APITokenIssuerTests.key, bundleId: "com.visla.gps")
        #expect {
            _ = try AppStoreServerAPIClient(baseURL: baseURL, tokens: tokens)
        } throws: { error in
            (error as? AppStoreAPIError)?.code == .invalidRequest
        }
        #expect((try? AppStoreServerAPIClient(baseURL: "http://127.0.0.1:8080", tokens: tokens)) != nil)
        #expect((try? AppStoreServerAPIClient(baseURL: "https://api.storekit.itunes.apple.com", tokens: tokens)) != nil)
    }

    @Test func aServerThatNeverAnswersTimesOutAndIsNamedWithoutThePath() throws {
        // Listening, never accepting: the connection waits in the backlog and no answer comes.
        let silent = try HTTPListener(host: "127.0.0.1", port: 0)
        let client = HTTPSClient(connectTimeoutMilliseconds: 1000, totalTimeoutMilliseconds: 300)
        do {
            _ = try client.send(HTTPSRequest(method: "GET", url: "http://127.0.0.1:\(silent.port)/secret?token=x"))
            Issue.record("expected a timeout")
        } catch {
            #expect(error.code == .timeout)
            #expect(error.message.hasPrefix("GET http://127.0.0.1:\(silent.port): "))
            #expect(!error.message.contains("secret"))
        }
    }

    @Test func aResponseOverTheLimitIsRefused() throws {
        let key = APITokenIssuerTests.key
        let fake = FakeAppStoreAPI(
            publicKey: key.privateKey.publicKey, keyId: key.keyId, issuerId: key.issuerId)
        let fixture = try APIHistoryFixture(count: 20, subscriptions: 1)
        fixture.serve(from: fake)
        let url = try fake.start()
        defer { fake.stop() }
        let client = try AppStoreServerAPIClient(
            baseURL: url, tokens: APITokenIssuer(key: key, bundleId: TestPKI.bundleId),
            transport: HTTPSClient(maxResponseBytes: 4096))
        do {
            _ = try client.notificationHistoryPage(
                NotificationHistoryRequest(
                    startDate: APIHistoryFixture.start, endDate: APIHistoryFixture.start + 86_400_000))
            Issue.record("expected the limit to hold")
        } catch {
            #expect(error.code == .responseTooLarge)
            #expect(fake.requestCount == 1)
        }
    }

    @Test func aNonHTTPSchemeIsRefusedBeforeAnythingIsSent() {
        let key = APITokenIssuerTests.key
        #expect(throws: AppStoreAPIError.self) {
            try AppStoreServerAPIClient(
                baseURL: "ftp://api.example.test", tokens: APITokenIssuer(key: key, bundleId: TestPKI.bundleId))
        }
    }
}
