import LedgerHTTP
import Testing

/// `/v1/subscriptions/{originalTransactionId}/…` takes Apple's id, decimal digits, as the user routes take a user
/// id: anything else is a 400 naming the rule, not the empty state of a subscription no one has.
@Suite struct SubscriptionIdTests {
    static let message = "the original transaction id must be Apple's originalTransactionId: 1 to 64 decimal digits"

    @Test(arguments: [
        "abc", "%20", "2000000000000001%20", "12%2F34", "1.5", "-1", "0000002a-0000-0000-0000-000000000000",
        String(repeating: "1", count: 65),
    ])
    func anIdThatIsNotDecimalDigitsIs400(id: String) throws {
        let harness = try APIHarness()
        for route in ["entitlement", "history"] {
            let response = try harness.respond(.get, "/v1/subscriptions/\(id)/\(route)")
            #expect(response.status == .badRequest, "\(id) \(route)")
            #expect(response.json?["error"]?["status"] == "BAD_REQUEST")
            #expect(response.json?["error"]?["message"]?.string == Self.message, "\(response.bodyText)")
        }
    }

    @Test func anIdOfDecimalDigitsIsAnswered() throws {
        let harness = try APIHarness()
        _ = try harness.respond(.post, "/webhooks/apple", body: try harness.notification())
        let response = try harness.respond(.get, "/v1/subscriptions/2000000000000001/entitlement")
        #expect(response.status == .ok)
        #expect(response.json?["userId"] == 42)
        let longest = try harness.respond(.get, "/v1/subscriptions/\(String(repeating: "9", count: 64))/history")
        #expect(longest.status == .ok)
        #expect(longest.json?.array?.isEmpty == true)
    }
}
