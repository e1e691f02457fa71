import LedgerHTTP
import Testing

/// Query strings: a parameter given twice is refused, not resolved by a guess.
@Suite struct QueryParameterTests {
    @Test(arguments: ["/v1/users/7/entitlement?at=1&at=2", "/v1/users/7/entitlement?at=1&knownAt=2&a%74=3"])
    func aRepeatedParameterIsRefusedBeforeRouting(target: String) {
        #expect {
            _ = try HTTPRequest(method: .get, target: target)
        } throws: { error in
            let error = error as? HTTPError
            return error?.status == .badRequest
                && error?.message == "the query gives the parameter 'at' more than once; give each parameter once"
        }
    }

    @Test func aRepeatedParameterIsA400OverLoopbackWithAJSONError() throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try server.client().send(
            .get, "/v1/users/7/entitlement?at=1&at=2", headers: ["Authorization": "Bearer read-secret"])
        #expect(response.status == .badRequest)
        #expect(errorStatus(of: response) == "BAD_REQUEST")
        #expect(response.bodyText.contains("gives the parameter 'at' more than once"))
    }

    @Test func distinctParametersAndEmptyPairsStillParse() throws {
        let request = try HTTPRequest(method: .get, target: "/x?at=1&&knownAt=2&flag")
        #expect(request.query("at") == "1")
        #expect(request.query("knownAt") == "2")
        #expect(request.query("flag") == "")
    }
}
