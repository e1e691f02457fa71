import LedgerHTTP
import Testing

/// No bearer token reaches the access log or an error body: not the right one, not a wrong one, not one sent
/// with a request refused before routing.
@Suite struct AccessLogSecretsTests {
    @Test func noAuthorizationHeaderOrTokenIsEverLoggedOrEchoed() throws {
        let log = LogLines()
        let server = try TestServer(
            application: makeTestApplication(readToken: "read-secret", adminToken: "admin-secret"),
            accessLog: log.accessLog)
        let client = server.client()
        var bodies: [String] = []
        for (target, token) in [
            ("/v1/users/7/entitlement", "read-secret"), ("/v1/users/7/entitlement", "guessed-secret"),
            ("/v1/users/7/entitlement?at=1&at=2", "read-secret"), ("/nowhere", "read-secret"),
        ] {
            bodies.append(try client.send(.get, target, headers: ["Authorization": "Bearer \(token)"]).bodyText)
        }
        bodies.append(
            try client.send(.post, "/v1/admin/link", headers: ["Authorization": "Bearer guessed-secret"]).bodyText)
        bodies.append(
            try client.send(
                .get, "/v1/users/7/entitlement",
                headers: ["Authorization": "Bearer read-secret", "authorization": "Bearer admin-secret"]
            ).bodyText)
        // Refused while the head is read: a malformed header line after the credential.
        try client.sendRaw(
            Array("GET /healthz HTTP/1.1\r\nAuthorization: Bearer read-secret\r\nbad header\r\n\r\n".utf8))
        bodies.append(String(decoding: try client.readUntilClosed(), as: UTF8.self))
        server.stop()
        let lines = log.all
        #expect(lines.count == 7, "\(lines)")
        for line in lines { #expect(!line.lowercased().contains("bearer") && !line.contains("secret"), "\(line)") }
        for body in bodies { #expect(!body.contains("secret"), "\(body)") }
    }
}
