import LedgerCore
import LedgerHTTP
import LedgerJSON
import Testing

/// `POST /v1/voids` and the gates of `POST /v1/links`, and the read routes' answers around a void.
@Suite struct OperatorGateRouteTests {
    let admin: HTTPHeaders = ["Authorization": "Bearer a-secret"]

    func post(_ harness: APIHarness, _ path: String, _ fields: JSONObject) throws -> HTTPResponse {
        try harness.respond(.post, path, headers: admin, body: JSONValue.object(fields).serializedBytes())
    }

    func deviceLimit(_ harness: APIHarness, _ path: String, knownAt: Instant? = nil) throws -> JSONValue? {
        let known = knownAt.map { "&knownAt=\($0.iso8601)" } ?? ""
        return try harness.respond(.get, path + "?at=2026-03-02T00:00:00Z" + known).json?["deviceLimit"]
    }

    @Test func aVoidTakesTheRecordOutOfTheReadRoutesFromItsRecordingTimeOn() throws {
        let harness = try APIHarness(adminToken: "a-secret")
        #expect(try harness.respond(.post, "/webhooks/apple", body: try harness.notification()).status.code == 200)
        let paths = ["/v1/users/42/entitlement", "/v1/subscriptions/2000000000000001/entitlement"]
        for path in paths { #expect(try deviceLimit(harness, path) == 3, "\(path)") }
        let void = try post(harness, "/v1/voids", ["seq": 1, "reason": "ingested by mistake", "operator": "ops"])
        #expect(void.status.code == 200, Comment(rawValue: void.bodyText))
        #expect(void.json == .object(["appended": true, "seq": 2]))
        let history = try harness.respond(.get, "/v1/users/42/history").json?.array ?? []
        #expect(history.first { $0["seq"] == 1 }?["voidedBySeq"] == 2)
        #expect(history.first { $0["seq"] == 2 }?["kind"] == "void")
        let recorded = try #require(
            history.first { $0["seq"] == 2 }?["recordedAt"]?.string.flatMap(Instant.init(parsing:)))
        for path in paths {
            #expect(try deviceLimit(harness, path) == 0, "\(path)")
            #expect(try deviceLimit(harness, path, knownAt: recorded) == 0, "\(path)")
            #expect(
                try deviceLimit(harness, path, knownAt: Instant(milliseconds: recorded.milliseconds - 1)) == 3,
                "\(path)")
        }
        // Again: a duplicate, nothing appended.
        let again = try post(harness, "/v1/voids", ["seq": 1, "reason": "again", "operator": "ops"])
        #expect(again.json == .object(["appended": false, "seq": 2]))
        #expect(try harness.respond(.get, "/healthz").json?["head"] == 2)
    }

    @Test func aVoidOfAnUnknownSeqOrOfAVoidOrWithABadBodyIsRefused() throws {
        let harness = try APIHarness(adminToken: "a-secret")
        _ = try harness.respond(.post, "/webhooks/apple", body: try harness.notification())
        #expect(try post(harness, "/v1/voids", ["seq": 1, "reason": "r", "operator": "o"]).status.code == 200)
        let cases: [(JSONObject, Int, String)] = [
            (["seq": 3, "reason": "r", "operator": "o"], 404, "no record 3; the log's head is 2"),
            (["seq": 0, "reason": "r", "operator": "o"], 404, "no record 0; the log's head is 2"),
            (["seq": 2, "reason": "r", "operator": "o"], 409, "record 2 is itself a void"),
            (["seq": "1", "reason": "r", "operator": "o"], 400, "seq"),
            (["seq": 1, "operator": "o"], 400, "reason"),
            (["seq": 1, "reason": "r"], 400, "operator"),
            (["seq": 1, "reason": " ", "operator": "o"], 400, "reason needs some text"),
            (["seq": 1, "reason": "r", "operator": "\n"], 400, "operator needs some text"),
        ]
        for (fields, status, message) in cases {
            let response = try post(harness, "/v1/voids", fields)
            #expect(response.status.code == status, "\(fields): \(response.bodyText)")
            #expect(response.json?["error"]?["message"]?.string?.contains(message) == true, "\(response.bodyText)")
        }
        #expect(try harness.respond(.get, "/healthz").json?["head"] == 2, "nothing appended")
        let unauthorized = try harness.respond(
            .post, "/v1/voids", body: JSONValue.object(["seq": 1, "reason": "r", "operator": "o"]).serializedBytes())
        #expect(unauthorized.status.code == 401)
    }

    @Test func aLinkToAnUnknownOrOwnedSubscriptionIsRefused() throws {
        let harness = try APIHarness(adminToken: "a-secret")
        _ = try harness.respond(.post, "/webhooks/apple", body: try harness.notification())
        let unknown = try post(
            harness, "/v1/links",
            ["originalTransactionId": "2999999999999999", "userId": 7, "reason": "r", "operator": "o"])
        #expect(unknown.status.code == 404, Comment(rawValue: unknown.bodyText))
        let owned = try post(
            harness, "/v1/links",
            ["originalTransactionId": "2000000000000001", "userId": 7, "reason": "r", "operator": "o"])
        #expect(owned.status.code == 409, Comment(rawValue: owned.bodyText))
        #expect(owned.json?["error"]?["message"]?.string?.contains("belongs to user 42") == true)
        let bad = try post(
            harness, "/v1/links",
            [
                "originalTransactionId": "2000000000000001", "userId": 7, "reason": "r", "operator": "o",
                "reassign": "yes",
            ])
        #expect(bad.status.code == 400)
        #expect(try harness.respond(.get, "/healthz").json?["head"] == 1, "nothing appended")
    }
}
