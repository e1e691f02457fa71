import LedgerHTTP
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// At the connection cap a new client is still served when some connection can go: the one whose request began
/// over a second ago and has not arrived (head or body), else the one idle longest; when none can, 503.
@Suite("Connection cap")
struct ConnectionCapTests {
    @Test func connectionsOverTheCapGet503WhenNoneIsIdle() throws {
        let server = try TestServer(maxConnections: 2)
        defer { server.stop() }
        // Two connections in the middle of a request head: busy, not idle.
        let first = server.client()
        let second = server.client()
        try first.sendRaw(Array("GET /healthz HTTP/1.1\r\n".utf8))
        try second.sendRaw(Array("GET /healthz HTTP/1.1\r\n".utf8))
        usleep(100_000)
        let third = server.client()
        let refused = try third.send(.get, "/healthz")
        #expect(refused.status == .serviceUnavailable)
        #expect(refused.headers["Retry-After"] == "1")
        first.close()
        usleep(100_000)
        #expect(try server.client().send(.get, "/healthz").status == .ok)
    }

    @Test func atTheCapAStalledRequestHeadIsClosedBeforeAKeepAliveConnection() throws {
        let server = try TestServer(maxConnections: 2)
        defer { server.stop() }
        let staller = server.client()
        try staller.sendRaw(Array("GET /healthz HTTP/1.1\r\nHost: te".utf8))
        usleep(1_100_000)
        let keeper = server.client()
        _ = try keeper.send(.get, "/healthz")
        usleep(100_000)
        // The keep-alive client has been idle 0.1 s, the head has been arriving for over a second: it goes.
        let third = server.client()
        #expect(try third.send(.get, "/healthz").status == .ok)
        #expect(try staller.readUntilClosed().isEmpty)
        #expect(try keeper.send(.get, "/healthz").status == .ok)
    }

    @Test func atTheCapAStalledRequestBodyIsClosedBeforeAKeepAliveConnection() throws {
        let server = try TestServer(maxConnections: 2)
        defer { server.stop() }
        let staller = server.client()
        try staller.sendRaw(Array("POST /webhooks/apple HTTP/1.1\r\nHost: h\r\nContent-Length: 5000\r\n\r\nsi".utf8))
        for byte in Array("gned".utf8) {
            usleep(300_000)
            try staller.sendRaw([byte])  // a byte now and then: progress, but the request began over a second ago
        }
        let keeper = server.client()
        _ = try keeper.send(.get, "/healthz")
        usleep(100_000)
        let third = server.client()
        #expect(try third.send(.post, "/webhooks/apple", body: Array("signedPayload".utf8)).status == .ok)
        #expect(try staller.readUntilClosed().isEmpty)
        #expect(try keeper.send(.get, "/healthz").status == .ok)
    }

    @Test func atTheCapTheConnectionIdleLongestIsClosedToMakeRoom() throws {
        let server = try TestServer(maxConnections: 2)
        defer { server.stop() }
        let oldest = server.client()
        _ = try oldest.send(.get, "/healthz")
        usleep(50_000)
        let recent = server.client()
        _ = try recent.send(.get, "/healthz")
        usleep(50_000)
        // Both idle between requests: a third client is served, and the one idle longest is closed for it.
        let third = server.client()
        #expect(try third.send(.get, "/healthz").status == .ok)
        #expect(try oldest.readUntilClosed().isEmpty)
        usleep(100_000)
        // Only the oldest was closed: the third and the recent one remain.
        #expect(server.server.openConnections == 2)
        #expect(try recent.send(.get, "/healthz").status == .ok)
        #expect(try third.send(.get, "/healthz").status == .ok)
        #expect(server.server.openConnections == 2)
    }
}
