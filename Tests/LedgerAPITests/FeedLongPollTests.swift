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
}
