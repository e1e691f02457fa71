import Foundation
import LedgerHTTP
import LedgerJSON
import LedgerSystem
import LedgerTesting
import Testing

/// The catch-up feed's long poll is woken by the group commit, not by the end of its wait.
@Suite struct FeedLongPollTests {
    @Test func aWaitingFeedReturnsAsSoonAsARecordIsDurable() throws {
        let harness = try APIHarness()
        let body = try harness.notification()
        let slots = ResultSlots<(HTTPResponse, Double)>(count: 2)
        runThreads(2) { thread in
            if thread == 0 {
                let started = Date()
                if let response = try? harness.respond(.get, "/v1/events?after=0&wait=30") {
                    slots.set(0, (response, Date().timeIntervalSince(started)))
                }
            } else {
                usleep(200_000)
                if let response = try? harness.respond(.post, "/webhooks/apple", body: body) {
                    slots.set(1, (response, 0))
                }
            }
        }
        let values = slots.values()
        let (feed, seconds) = try #require(values[0])
        #expect(values[1]?.0.status.code == 200)
        #expect(feed.json?["events"]?.array?.count == 1)
        #expect(feed.json?["next"] == 1)
        #expect(seconds < 10, "the feed waited \(seconds) s instead of returning when the record arrived")
    }

    @Test func aLongPollBeyondTheLimitIsToldToRetryAtOnce() throws {
        let harness = try APIHarness(maxWaitingFeeds: 2)
        let body = try harness.notification()
        let slots = ResultSlots<(events: Int, seconds: Double)>(count: 3)
        runThreads(4) { thread in
            if thread < 3 {
                // Two wait; the third to arrive finds the limit reached: 503 with Retry-After at once, not an
                // empty page a consumer would poll again for at once.
                usleep(UInt32(thread) * 150_000)
                let started = Date()
                if let response = try? harness.respond(.get, "/v1/events?after=0&wait=30") {
                    let events =
                        response.status == .serviceUnavailable && response.headers["Retry-After"] == "1"
                        ? -1 : response.json?["events"]?.array?.count ?? -2
                    slots.set(thread, (events, Date().timeIntervalSince(started)))
                }
            } else {
                usleep(1_500_000)
                _ = try? harness.respond(.post, "/webhooks/apple", body: body)
            }
        }
        // Whichever came third (the threads may start in any order on a busy machine).
        let answers = try slots.values().map { try #require($0) }.sorted { $0.seconds < $1.seconds }
        #expect(answers[0].events == -1, "503 with Retry-After")
        #expect(answers[0].seconds < 0.8, "the request over the limit waited \(answers[0].seconds) s")
        for waited in answers[1...] {
            #expect(waited.events == 1)
            #expect(waited.seconds > 0.8 && waited.seconds < 10, "waited \(waited.seconds) s")
        }
        // The waits are over: a new long poll may wait again.
        let started = Date()
        _ = try harness.respond(.get, "/v1/events?after=1&wait=0.3")
        #expect(Date().timeIntervalSince(started) >= 0.25)
    }

    @Test func everyWaitingFeedWokenAtOnceGetsItsPage() throws {
        let harness = try APIHarness()
        let waiting = harness.api.maxWaitingFeeds
        #expect(waiting <= harness.api.heavyReads.concurrency + harness.api.heavyReads.queueLimit)
        let body = try harness.notification()
        let slots = ResultSlots<Int>(count: waiting)
        runThreads(waiting + 1) { thread in
            if thread < waiting {
                let response = try? harness.respond(.get, "/v1/events?after=0&wait=30")
                slots.set(thread, response?.json?["events"]?.array?.count ?? -Int(response?.status.code ?? 1))
            } else {
                usleep(1_000_000)
                _ = try? harness.respond(.post, "/webhooks/apple", body: body)
            }
        }
        #expect(try slots.values().map { try #require($0) } == Array(repeating: 1, count: waiting))
    }

    @Test func overTheLimitARequestWithRecordsToReturnGetsThem() throws {
        let harness = try APIHarness(maxWaitingFeeds: 0)
        let empty = try harness.respond(.get, "/v1/events?after=0&wait=5")
        #expect(empty.status == .serviceUnavailable)
        #expect(empty.headers["Retry-After"] == "1")
        #expect(empty.json?["error"]?["message"]?.string?.contains("too many feed requests wait") == true)
        _ = try harness.respond(.post, "/webhooks/apple", body: try harness.notification())
        let page = try harness.respond(.get, "/v1/events?after=0&wait=5")
        #expect(page.status == .ok)
        #expect(page.json?["events"]?.array?.count == 1)
        #expect(try harness.respond(.get, "/v1/events?after=0").status == .ok, "wait=0 never waits, never refused")
    }

    @Test func aWaitingFeedAnswersAtOnceWhenTheServerShutsDown() throws {
        let harness = try APIHarness()
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.onDrain = { [api = harness.api] in api.endLongPolls() }
        let server = try HTTPServer(configuration: configuration, responder: harness.application)
        let port = try server.start()
        let slots = ResultSlots<(status: Int, body: [UInt8], seconds: Double)>(count: 2)
        runThreads(2) { thread in
            let started = Date()
            if thread == 0 {
                if let response = try? HTTPClient(port: port).send(.get, "/v1/events?after=0&wait=30") {
                    slots.set(0, (Int(response.status.code), response.body, Date().timeIntervalSince(started)))
                }
            } else {
                usleep(300_000)
                server.shutdown()
                slots.set(1, (0, [], Date().timeIntervalSince(started)))
            }
        }
        let values = slots.values()
        let feed = try #require(values[0], "the feed request got no answer")
        #expect(feed.status == 200)
        #expect(try JSONValue.parse(feed.body) == .object(["events": [], "next": 0]))
        #expect(feed.seconds < 5, "the feed held on for \(feed.seconds) s of its 30 s wait")
        let shutdown = try #require(values[1])
        #expect(shutdown.seconds < 5, "the shutdown took \(shutdown.seconds) s")
    }
}
