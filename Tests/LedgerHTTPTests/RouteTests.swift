import LedgerHTTP
import LedgerJSON
import Testing

/// The same route table, answered in-process and over a loopback socket.
@Suite("Routes, in-process and over loopback")
struct RouteTests {
    let application = makeTestApplication(readToken: "read-secret", adminToken: nil)

    @Test(arguments: Transport.allCases)
    func healthAnswersJSON(transport: Transport) throws {
        let response = try exchange(transport, application, .get, "/healthz")
        #expect(response.status == .ok)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.bodyText == "{\"status\":\"ok\",\"head\":0}\n")
    }

    @Test(arguments: Transport.allCases)
    func unknownRouteIs404WithJSONError(transport: Transport) throws {
        let response = try exchange(transport, application, .get, "/v2/nothing")
        #expect(response.status == .notFound)
        #expect(errorStatus(of: response) == "NOT_FOUND")
        #expect(response.bodyText.contains("/v2/nothing"))
    }

    @Test(arguments: Transport.allCases)
    func wrongMethodIs405WithAllow(transport: Transport) throws {
        let response = try exchange(transport, application, .delete, "/webhooks/apple")
        #expect(response.status == .methodNotAllowed)
        #expect(response.headers["Allow"] == "POST")
        #expect(errorStatus(of: response) == "METHOD_NOT_ALLOWED")
        let onRead = try exchange(transport, application, .post, "/healthz", body: Array("x".utf8))
        #expect(onRead.status == .methodNotAllowed)
        #expect(onRead.headers["Allow"] == "GET, HEAD")
    }

    @Test(arguments: Transport.allCases)
    func parametersAndQueryAreDecoded(transport: Transport) throws {
        let response = try exchange(
            transport, application, .get, "/v1/users/4%202/entitlement?at=2026-03-01T00%3A00%3A00Z&x=1",
            headers: ["Authorization": "Bearer read-secret"])
        #expect(response.status == .ok)
        #expect(response.bodyText == "{\"userId\":\"4 2\",\"at\":\"2026-03-01T00:00:00Z\"}\n")
    }

    @Test(arguments: Transport.allCases)
    func literalSegmentBeatsParameter(transport: Transport) throws {
        let response = try exchange(
            transport, application, .get, "/v1/users/me/entitlement", headers: ["Authorization": "Bearer read-secret"])
        #expect(response.bodyText == "me")
    }

    @Test(arguments: Transport.allCases)
    func missingTokenIs401WithChallenge(transport: Transport) throws {
        let response = try exchange(transport, application, .get, "/v1/users/42/entitlement")
        #expect(response.status == .unauthorized)
        #expect(response.headers["WWW-Authenticate"] == "Bearer realm=\"ledger\"")
        #expect(errorStatus(of: response) == "UNAUTHORIZED")
    }

    @Test(
        arguments: Transport.allCases,
        ["Bearer wrong", "Bearer read-secre", "Bearer read-secretX", "Basic cmVhZC1zZWNyZXQ=", "read-secret"])
    func wrongTokenIs401(transport: Transport, authorization: String) throws {
        let response = try exchange(
            transport, application, .get, "/v1/users/42/entitlement", headers: ["Authorization": authorization])
        #expect(response.status == .unauthorized)
        #expect(errorStatus(of: response) == "UNAUTHORIZED")
    }

    @Test(arguments: Transport.allCases)
    func twoAuthorizationHeadersAre400EvenWithTheRightToken(transport: Transport) throws {
        var headers = HTTPHeaders()
        headers.add("Authorization", "Bearer read-secret")
        headers.add("Authorization", "Bearer wrong")
        let response = try exchange(transport, application, .get, "/v1/users/42/entitlement", headers: headers)
        #expect(response.status.code == 400)
        #expect(errorStatus(of: response) == "BAD_REQUEST")
    }

    @Test(arguments: Transport.allCases)
    func bearerSchemeIsCaseInsensitive(transport: Transport) throws {
        let response = try exchange(
            transport, application, .get, "/v1/users/42/entitlement", headers: ["Authorization": "bearer read-secret"])
        #expect(response.status == .ok)
    }

    @Test(arguments: Transport.allCases)
    func readsAreOpenWithoutAReadToken(transport: Transport) throws {
        let open = makeTestApplication(readToken: nil)
        let response = try exchange(transport, open, .get, "/v1/users/42/entitlement")
        #expect(response.status == .ok)
    }

    @Test(arguments: Transport.allCases)
    func adminWithoutConfiguredTokenIsForbidden(transport: Transport) throws {
        let response = try exchange(
            transport, application, .post, "/v1/admin/link", headers: ["Authorization": "Bearer anything"])
        #expect(response.status == .forbidden)
        #expect(response.bodyText.contains("--admin-token"))
    }

    @Test(arguments: Transport.allCases)
    func adminWithTokenNeedsIt(transport: Transport) throws {
        let app = makeTestApplication(adminToken: "admin-secret")
        let refused = try exchange(
            transport, app, .post, "/v1/admin/link", headers: ["Authorization": "Bearer read-secret"])
        #expect(refused.status == .unauthorized)
        let allowed = try exchange(
            transport, app, .post, "/v1/admin/link", headers: ["Authorization": "Bearer admin-secret"])
        #expect(allowed.status == .ok)
    }

    @Test(arguments: Transport.allCases)
    func handlerHTTPErrorBecomesItsJSONBody(transport: Transport) throws {
        let response = try exchange(transport, application, .post, "/webhooks/apple", body: Array("{}".utf8))
        #expect(response.status == .badRequest)
        #expect(
            response.bodyText
                == "{\"error\":{\"status\":\"BAD_REQUEST\",\"message\":\"the body is not an App Store notification\"}}\n"
        )
    }

    @Test(arguments: Transport.allCases)
    func unexpectedErrorIs500WithoutDetails(transport: Transport) throws {
        let response = try exchange(transport, application, .get, "/boom")
        #expect(response.status == .internalServerError)
        #expect(errorStatus(of: response) == "INTERNAL_ERROR")
        #expect(!response.bodyText.contains("secret internal detail"))
    }

    @Test(arguments: Transport.allCases)
    func convertibleErrorKeepsItsStatus(transport: Transport) throws {
        let response = try exchange(transport, application, .get, "/storage-down")
        #expect(response.status == .serviceUnavailable)
        #expect(errorStatus(of: response) == "UNAVAILABLE")
    }

    @Test(arguments: Transport.allCases)
    func webhookGetsItsBody(transport: Transport) throws {
        let body = Array(#"{"signedPayload":"eyJ..."}"#.utf8)
        let response = try exchange(transport, application, .post, "/webhooks/apple", body: body)
        #expect(response.status == .ok)
        #expect(response.bodyText == "{\"accepted\":true,\"bytes\":\(body.count)}\n")
    }

    @Test func headIsServedByGetWithoutBodyOverTheWire() throws {
        let server = try TestServer(application: application)
        defer { server.stop() }
        let client = server.client()
        let head = try client.send(.head, "/healthz")
        #expect(head.status == .ok)
        #expect(head.body.isEmpty)
        #expect(head.headers["Content-Length"] == "25")
        let get = try client.send(.get, "/healthz")
        #expect(get.body.count == 25)
    }

    @Test func errorMiddlewareReportsUnexpectedErrors() throws {
        final class Seen: @unchecked Sendable {  // written once, read after respond returns
            var description = ""
        }
        let seen = Seen()
        var router = Router()
        router.get("/boom") { _ in throw TestFailure(detail: "disk on fire") }
        let app = HTTPApplication(
            router: router, errors: ErrorMiddleware { _, error in seen.description = "\(error)" })
        let response = app.respond(to: try HTTPRequest(method: .get, target: "/boom"))
        #expect(response.status == .internalServerError)
        #expect(seen.description.contains("disk on fire"))
    }
}

@Suite("JSON bodies")
struct JSONBodyTests {
    @Test(arguments: Transport.allCases)
    func jsonValueResponsesAndRequestBodies(transport: Transport) throws {
        var router = Router()
        router.post("/echo") { request in
            let value = try request.jsonBody()
            return .json(.ok, .object(["got": value, "n": .integer(1)]))
        }
        let app = HTTPApplication(router: router)
        let ok = try exchange(transport, app, .post, "/echo", body: Array(#"{"signedPayload":"a\"b"}"#.utf8))
        #expect(ok.status == .ok)
        #expect(ok.bodyText == #"{"got":{"signedPayload":"a\"b"},"n":1}"# + "\n")
        let bad = try exchange(transport, app, .post, "/echo", body: Array("{nope".utf8))
        #expect(bad.status == .badRequest)
        #expect(errorStatus(of: bad) == "BAD_REQUEST")
    }
}
