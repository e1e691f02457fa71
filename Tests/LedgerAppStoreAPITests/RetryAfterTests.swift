import LedgerAppStoreAPI
import LedgerJSON
import LedgerTesting
import Testing

/// `Retry-After` as RFC 9110 allows it: delay-seconds or an HTTP-date, in each of its three forms.
@Suite struct RetryAfterTests {
    /// 1994-11-06T08:49:37Z, RFC 9110's example date.
    static let example: Int64 = 784_111_777_000

    @Test func readsEachFormOfHTTPDate() {
        #expect(RetryAfter.httpDate("Sun, 06 Nov 1994 08:49:37 GMT") == Self.example)
        #expect(RetryAfter.httpDate("Sunday, 06-Nov-94 08:49:37 GMT") == Self.example)
        #expect(RetryAfter.httpDate("Sun Nov  6 08:49:37 1994") == Self.example)
        #expect(RetryAfter.httpDate("Wed, 02 Dec 2026 01:30:00 GMT") == 1_796_175_000_000)
        #expect(RetryAfter.httpDate("Thu, 29 Feb 2024 00:00:00 GMT") == 1_709_164_800_000)
    }

    @Test func refusesWhatIsNoHTTPDate() {
        for text in [
            "", "soon", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 08:49 GMT", "Sun, 31 Feb 1994 08:49:37 GMT",
            "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "1994-11-06T08:49:37Z", "-5", "1.5",
            "Xyz, 06 Nov 1994 08:49:37 GMT",
        ] {
            #expect(RetryAfter.milliseconds(text, now: 0) == nil, "\(text)")
        }
    }

    @Test func countsFromNowAndNeverBackwards() {
        #expect(RetryAfter.milliseconds("120", now: Self.example) == 120_000)
        #expect(RetryAfter.milliseconds(" 0 ", now: Self.example) == 0)
        #expect(RetryAfter.milliseconds("Sun, 06 Nov 1994 08:49:44 GMT", now: Self.example) == 7000)
        // A date already past waits nothing.
        #expect(RetryAfter.milliseconds("Sun, 06 Nov 1994 08:49:30 GMT", now: Self.example) == 0)
    }

    @Test func theClientWaitsUntilAnHTTPDateItIsGiven() throws {
        let limited = HTTPSResponse(
            status: 429, headers: [("Retry-After", "Sun, 06 Nov 1994 08:49:42 GMT")],
            body: JSONValue.object(["errorCode": 4_290_000]).serializedBytes())
        let unavailable = HTTPSResponse(status: 503, headers: [("retry-after", "Sun, 06 Nov 1994 08:49:40 GMT")])
        let page = JSONValue.object(["notificationHistory": .array([]), "hasMore": false])
        let transport = ScriptedTransport([
            limited, unavailable, HTTPSResponse(status: 200, body: page.serializedBytes()),
        ])
        let pauses = Pauses()
        let client = try AppStoreServerAPIClient(
            baseURL: "https://api.example.test",
            tokens: APITokenIssuer(key: AppStoreServerAPIClientTests.key, bundleId: TestPKI.bundleId),
            transport: transport, pause: { milliseconds in pauses.recorded.withLock { $0.append(milliseconds) } },
            clock: { Self.example })
        _ = try client.notificationHistoryPage(AppStoreServerAPIClientTests.window)
        #expect(pauses.all == [5000, 3000])
        #expect(transport.sent.withLock { $0.count } == 3)
    }

    @Test func aDateBeyondTheLongestPauseIsCapped() {
        let policy = APIRetryPolicy(maxDelayMilliseconds: 60_000)
        let wait = RetryAfter.milliseconds("Mon, 07 Nov 1994 08:49:37 GMT", now: Self.example)
        #expect(wait == 86_400_000)
        #expect(policy.delay(afterAttempt: 1, retryAfterMilliseconds: wait) == 60_000)
        #expect(policy.delay(afterAttempt: 1, retryAfterMilliseconds: nil) == 500)
    }
}
