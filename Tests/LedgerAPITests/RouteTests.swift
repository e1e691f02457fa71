import LedgerAPI
import LedgerHTTP
import LedgerJSON
import LedgerLog
import LedgerStore
import LedgerSystem
import LedgerTesting
import Testing

@testable import LedgerService

@Suite struct RouteTests {
    @Test func webhookAppendsThenAnswersDuplicatesWith200() throws {
        let harness = try APIHarness()
        let body = try harness.notification()
        let first = try harness.respond(.post, "/webhooks/apple", body: body)
        #expect(first.status.code == 200)
        #expect(first.json?["seq"] == 1)
        let second = try harness.respond(.post, "/webhooks/apple", body: body)
        #expect(second.status.code == 200)
        #expect(second.json?["duplicate"] == true)
        #expect(harness.api.ledger.head.seq == 1)
    }

    /// Apple delivering a notification again is a second chance for its evidence: a damaged copy is written again.
    @Test func aDeliveryAgainWritesDamagedEvidenceAfresh() throws {
        let harness = try APIHarness()
        let body = try harness.notification()
        #expect(try harness.respond(.post, "/webhooks/apple", body: body).status.code == 200)
        let log = try #require(harness.api.ledger.log as? EventLog)
        let digest = try #require(try harness.api.ledger.entry(seq: 1).record.evidence)
        let original = try #require(try log.evidence(digest))
        // One byte of the stored body flipped in place (the writer's descriptor sees it).
        let location = try #require(log.evidenceLocation(digest))
        let fileSystem = PosixFileSystem()
        let at = location.offset + 56 + Int64(location.length / 2)
        let fd = try fileSystem.open(location.path, OpenOptions(access: .readWrite))
        defer { try? fileSystem.close(fd) }
        let byte = try fileSystem.read(fd, count: 1, at: at)
        try fileSystem.writeAll(fd, [byte[0] ^ 0x20], at: at)
        #expect(throws: LogError.self) { try log.evidence(digest) }

        let again = try harness.respond(.post, "/webhooks/apple", body: body)
        #expect(again.status.code == 200)
        #expect(again.json?["duplicate"] == true)
        #expect(try log.evidence(digest) == original)
        #expect(log.head.seq == 1)
        // Delivered a third time, the intact copy is left as it is.
        let size = try #require(try fileSystem.stat(location.path)).size
        #expect(try harness.respond(.post, "/webhooks/apple", body: body).json?["duplicate"] == true)
        #expect(try fileSystem.stat(location.path)?.size == size)
    }

    @Test(arguments: [
        ("", 400, "BAD_REQUEST"), ("{", 400, "BAD_REQUEST"), (#"{"other":1}"#, 400, "BAD_REQUEST"),
        (#"{"signedPayload":"abc"}"#, 422, "INVALID_JWT_FORMAT"),
        (#"{"signedPayload":"a.b.c"}"#, 422, "INVALID_JWT_FORMAT"),
    ])
    func webhookRejectsBadBodies(body: String, status: Int, code: String) throws {
        let harness = try APIHarness()
        let response = try harness.respond(.post, "/webhooks/apple", body: Array(body.utf8))
        #expect(response.status.code == status)
        #expect(response.json?["error"]?["status"] == .string(code))
        #expect(harness.api.ledger.head.seq == 0)
        #expect(try harness.api.pipeline.quarantine.items().count == 1)
    }

    @Test func forgedSignatureIs422WithAppleStatus() throws {
        let harness = try APIHarness()
        let stranger = try TestPKI()
        let body = TestPKI.body(try stranger.signedNotification())
        let response = try harness.respond(.post, "/webhooks/apple", body: body)
        #expect(response.status.code == 422)
        #expect(response.json?["error"]?["status"] == "VERIFICATION_FAILURE")
    }

    @Test func entitlementEndpointsAnswerTheStateJSON() throws {
        let harness = try APIHarness()
        _ = try harness.respond(.post, "/webhooks/apple", body: try harness.notification())
        let at = "2026-03-02T00:00:00Z"
        let user = try harness.respond(.get, "/v1/users/42/entitlement?at=\(at)")
        #expect(user.status.code == 200)
        #expect(user.json?["deviceLimit"] == 3)
        let account = try harness.respond(
            .get, "/v1/accounts/0000002a-0000-0000-0000-000000000000/entitlement?at=\(at)")
        #expect(account.json == user.json)
        let subscription = try harness.respond(.get, "/v1/subscriptions/2000000000000001/entitlement?at=\(at)")
        #expect(subscription.json?["deviceLimit"] == 3)
        #expect(subscription.json?["userId"] == 42)
        let before = try harness.respond(.get, "/v1/users/42/entitlement?at=\(at)&knownAt=2000-01-01T00:00:00Z")
        #expect(before.json?["deviceLimit"] == 0)
        for id in ["abc", "%2B42", "042", "-1", "4294967296"] {
            #expect(try harness.respond(.get, "/v1/users/\(id)/entitlement").status.code == 400, "\(id)")
        }
        #expect(try harness.respond(.get, "/v1/users/42/entitlement?at=yesterday").status.code == 400)
        let history = try harness.respond(.get, "/v1/users/42/history")
        #expect(history.json?.array?.count == 1)
    }

    @Test func feedIsGapFreeAndPaged() throws {
        let harness = try APIHarness()
        try harness.postRenewals(5)
        let page = try harness.respond(.get, "/v1/events?after=1&limit=3")
        #expect(page.json?["events"]?.array?.compactMap { $0["seq"]?.int64 } == [2, 3, 4])
        #expect(page.json?["next"] == 4)
        let rest = try harness.respond(.get, "/v1/events?after=4&limit=3")
        #expect(rest.json?["events"]?.array?.count == 1)
        #expect(rest.json?["next"] == 5)
        let empty = try harness.respond(.get, "/v1/events?after=5&wait=0.05")
        #expect(empty.json?["events"]?.array?.isEmpty == true)
        #expect(empty.json?["next"] == 5)
        #expect(try harness.respond(.get, "/v1/events?limit=0").status.code == 400)
        // Every malformed or out-of-range cursor and limit is a 400 naming the parameter, never a trap.
        for query in [
            "after=abc", "after=-1", "after=1.5", "after=%2B1", "after=", "after=9223372036854775808",
            "after=99999999999999999999999", "limit=2.5", "limit=1001", "wait=-1", "wait=61", "wait=nan", "wait=0x10",
            "wait=1e1",
        ] {
            let refused = try harness.respond(.get, "/v1/events?\(query)")
            #expect(refused.status.code == 400, "\(query)")
            let name = String(query.prefix { $0 != "=" })
            #expect(refused.json?["error"]?["message"]?.string?.hasPrefix(name) == true, "\(query)")
        }
        let last = try harness.respond(.get, "/v1/events?after=9223372036854775807")
        #expect(last.status.code == 400)
        #expect(last.json?["error"]?["status"] == "CURSOR_AHEAD")
    }

    /// A cursor beyond the head (a consumer's from before a restore) is refused naming the head, instead of an
    /// empty page that would let the consumer skip the records appended up to its cursor; the head itself stays
    /// a valid cursor and long-polls.
    @Test func aCursorBeyondTheHeadIsRefused() throws {
        let harness = try APIHarness()
        try harness.postRenewals(2)
        for query in ["after=3", "after=7&wait=0.05", "after=7&limit=1"] {
            let ahead = try harness.respond(.get, "/v1/events?\(query)")
            #expect(ahead.status.code == 400, "\(query)")
            #expect(ahead.json?["error"]?["status"] == "CURSOR_AHEAD", "\(query)")
            let message = ahead.json?["error"]?["message"]?.string ?? ""
            #expect(message.contains("beyond the head, record 2"), "\(message)")
        }
        let atHead = try harness.respond(.get, "/v1/events?after=2&wait=0.05")
        #expect(atHead.status.code == 200)
        #expect(atHead.json == .object(["events": [], "next": 2]))
    }

    @Test func tokensGuardReadsAndAdmin() throws {
        let harness = try APIHarness(readToken: "r-secret", adminToken: "a-secret")
        #expect(try harness.respond(.get, "/v1/users/1/entitlement").status.code == 401)
        #expect(
            try harness.respond(.get, "/v1/users/1/entitlement", headers: ["Authorization": "Bearer nope"]).status.code
                == 401)
        #expect(
            try harness.respond(.get, "/v1/users/1/entitlement", headers: ["Authorization": "Bearer r-secret"]).status
                .code == 200)
        #expect(try harness.respond(.get, "/healthz").status.code == 200)
        let correction = JSONValue.object([
            "subject": .object(["userId": 7]), "action": "grant", "productId": "com.visla.gps.monthly_2",
            "from": "2026-01-01T00:00:00Z", "until": "2026-02-01T00:00:00Z", "reason": "goodwill", "operator": "ops",
        ]).serializedBytes()
        #expect(
            try harness.respond(
                .post, "/v1/corrections", headers: ["Authorization": "Bearer r-secret"], body: correction
            ).status.code == 401)
    }

    @Test func adminCorrectionNeedsAnAdminToken() throws {
        let harness = try APIHarness(adminToken: "a-secret")
        _ = try harness.respond(.post, "/webhooks/apple", body: try harness.notification())
        let correction = JSONValue.object([
            "subject": .object(["userId": 7]), "action": "grant", "productId": "com.visla.gps.monthly_2",
            "from": "2026-01-01T00:00:00Z", "until": "2026-02-01T00:00:00Z", "reason": "goodwill", "operator": "ops",
        ]).serializedBytes()
        let response = try harness.respond(
            .post, "/v1/corrections", headers: ["Authorization": "Bearer a-secret"], body: correction)
        #expect(response.status.code == 200, Comment(rawValue: response.bodyText))
        let state = try harness.respond(.get, "/v1/users/7/entitlement?at=2026-01-15T00:00:00Z")
        #expect(state.json?["deviceLimit"] == 2)
        let off = try APIHarness()
        #expect(try off.respond(.post, "/v1/corrections", body: correction).status.code == 403)
        // Odd bodies are 400s and append nothing: a fractional user id or time, a product id past any real one or
        // not in the catalog.
        let head = try harness.respond(.get, "/healthz").json?["head"]
        for (name, value) in [
            ("subject", JSONValue.object(["userId": .double(7.5)])), ("from", .double(1_767_225_600_000.5)),
            ("productId", .string(String(repeating: "p", count: 70_000))),
            ("productId", .string("com.visla.gps.monthly_99")),  // not in the catalog: the grant would give nothing
        ] {
            var fields: JSONObject = [
                "subject": .object(["userId": 7]), "action": "grant", "productId": "com.visla.gps.monthly_2",
                "from": "2026-01-01T00:00:00Z", "until": "2026-02-01T00:00:00Z", "reason": "r", "operator": "o",
            ]
            fields[name] = value
            let refused = try harness.respond(
                .post, "/v1/corrections", headers: ["Authorization": "Bearer a-secret"],
                body: JSONValue.object(fields).serializedBytes())
            #expect(refused.status.code == 400, "\(name)")
        }
        #expect(try harness.respond(.get, "/healthz").json?["head"] == head)
        #expect(try harness.respond(.get, "/v1/events?after=0").status.code == 200)
    }

    @Test func aLinkSaysWhoOwnsTheSubscriptionNow() throws {
        let harness = try APIHarness(adminToken: "a-secret")
        _ = try harness.respond(.post, "/webhooks/apple", body: try harness.notification())
        func link(user: Int64, reassign: Bool = false) throws -> JSONValue? {
            var fields: JSONObject = [
                "originalTransactionId": "2000000000000001", "userId": .integer(user), "reason": "ticket",
                "operator": "ops",
            ]
            if reassign { fields["reassign"] = true }
            let response = try harness.respond(
                .post, "/v1/links", headers: ["Authorization": "Bearer a-secret"],
                body: JSONValue.object(fields).serializedBytes())
            #expect(response.status.code == 200, Comment(rawValue: response.bodyText))
            return response.json
        }
        // The transactions carry user 42's token: a link to user 7 needs "reassign", is recorded then and changes
        // nothing.
        let other = try link(user: 7, reassign: true)
        #expect(other?["appended"] == true)
        #expect(other?["linked"] == false)
        #expect(other?["owner"] == .object(["userId": 42, "appAccountToken": "0000002a-0000-0000-0000-000000000000"]))
        #expect(try link(user: 42)?["linked"] == true)
    }

    @Test func unknownRoutesAndMethods() throws {
        let harness = try APIHarness()
        #expect(try harness.respond(.get, "/nope").status.code == 404)
        let wrong = try harness.respond(.get, "/webhooks/apple")
        #expect(wrong.status.code == 405)
        #expect(wrong.headers["Allow"]?.contains("POST") == true)
        let metrics = try harness.respond(.get, "/metrics")
        #expect(metrics.bodyText.contains("ledger_head_seq"))
        #expect(metrics.bodyText.contains("ledger_commit_batch_records"))
        #expect(metrics.bodyText.contains("ledger_append_seconds"))
        #expect(try harness.respond(.get, "/openapi.yaml").bodyText.hasPrefix("openapi: 3.1.0"))
    }

    @Test func theOpenAPIDocumentDescribesEveryRoute() throws {
        let harness = try APIHarness()
        let document = OpenAPIDocument.yaml
        let patterns = harness.api.router().patterns
        for pattern in patterns {
            #expect(document.contains("\n  \(pattern):\n"), "\(pattern) is missing from openapi.yaml")
        }
        // One operation per route, each with its operationId (Scripts/openapi-check validates the whole document).
        #expect(document.split(separator: "\n").filter { $0.hasPrefix("      operationId: ") }.count == patterns.count)
    }
}
