import LedgerHTTP
import LedgerSystem
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Server over loopback")
struct ServerTests {
    @Test func keepAliveServesManyRequestsOnOneConnection() throws {
        let log = LogLines()
        let server = try TestServer(accessLog: log.accessLog)
        defer { server.stop() }
        let client = server.client()
        for _ in 0..<20 {
            let response = try client.send(.get, "/healthz")
            #expect(response.status == .ok)
            #expect(response.headers["Connection"] == "keep-alive")
        }
        #expect(client.isConnected)
        server.stop()  // Lines are written just after each response is sent; stopping waits for the last.
        // Every request was logged from the same remote port: one connection.
        let remotes = Set(
            log.all.compactMap { line in line.split(separator: "\"remote\":\"").last?.split(separator: "\"").first })
        #expect(log.all.count == 20)
        #expect(remotes.count == 1)
    }

    /// A listener bound before the server exists (as `ledger serve` binds before it opens the data directory):
    /// the server accepts on it, and a second server cannot take it.
    @Test func aServerAcceptsOnAListenerBoundBeforeIt() throws {
        let listener = try HTTPListener(host: "127.0.0.1", port: 0)
        #expect(throws: SystemError.self) { try HTTPListener(host: "127.0.0.1", port: listener.port) }
        let server = try HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0), responder: makeTestApplication())
        defer { server.shutdown() }
        #expect(try server.start(listener: listener) == listener.port)
        #expect(try HTTPClient(port: listener.port).send(.get, "/healthz").status == .ok)
        let other = try HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0), responder: makeTestApplication())
        #expect(throws: SystemError.self) { try other.start(listener: listener) }
    }

    @Test func malformedRequestGets400AndTheConnectionCloses() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = server.client()
        try client.sendRaw(Array("GET / HTTP/1.1\r\nHost : bad\r\n\r\n".utf8))
        let reply = String(decoding: try client.readUntilClosed(), as: UTF8.self)
        #expect(reply.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(reply.contains("Connection: close\r\n"))
        #expect(reply.contains("{\"error\":{\"status\":\"BAD_REQUEST\""))
    }

    @Test func declaredBodyOver1MiBGets413BeforeItIsSent() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = server.client()
        try client.sendRaw(Array("POST /webhooks/apple HTTP/1.1\r\nHost: h\r\nContent-Length: 2000000\r\n\r\n".utf8))
        let response = try client.readResponse(method: .post)
        #expect(response.status == .payloadTooLarge)
        #expect(errorStatus(of: response) == "PAYLOAD_TOO_LARGE")
    }

    @Test func bodyOver1MiBSentWholeGets413() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = server.client()
        let response = try client.send(.post, "/webhooks/apple", body: [UInt8](repeating: 0x61, count: (1 << 20) + 1))
        #expect(response.status == .payloadTooLarge)
        // A body of exactly 1 MiB is accepted.
        let exact = try client.send(
            .post, "/webhooks/apple",
            body: Array("signedPayload".utf8) + [UInt8](repeating: 0x61, count: (1 << 20) - 13))
        #expect(exact.status == .ok)
    }

    @Test func chunkedBodyIsDecodedAndChunkedOverflowIs413() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = server.client()
        try client.sendRaw(
            Array("POST /webhooks/apple HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
                + Array("d\r\nsignedPayload\r\n0\r\n\r\n".utf8))
        let ok = try client.readResponse(method: .post)
        #expect(ok.status == .ok)
        #expect(ok.bodyText.contains("\"bytes\":13"))
        try client.sendRaw(
            Array("POST /webhooks/apple HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
                + Array("80000\r\n".utf8) + [UInt8](repeating: 0x61, count: 0x80000) + Array("\r\n80001\r\n".utf8))
        let refused = try client.readResponse(method: .post)
        #expect(refused.status == .payloadTooLarge)
    }

    /// Chunk-size lines may carry extensions of up to 1 KiB each: a body of one-byte chunks sends a thousand wire
    /// bytes per decoded byte. The connection must hold the decoded body (at most 1 MiB), never the wire bytes:
    /// run in a child process so its peak resident memory is the server's alone.
    @Test func chunkExtensionsDoNotGrowTheConnectionBufferPastTheBody() async {
        await #expect(processExitsWith: .success) {
            func peakResidentKiB() -> Int {
                let fd = open("/proc/self/status", O_RDONLY)
                defer { close(fd) }
                var bytes = [UInt8](repeating: 0, count: 16 * 1024)
                let count = read(fd, &bytes, bytes.count)
                let status = String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
                let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
                let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                return fields.dropFirst().first.flatMap { Int($0) } ?? -1
            }
            let server = try! TestServer(timeouts: .init(body: .seconds(120)))
            let client = server.client(timeout: .seconds(120))
            let before = peakResidentKiB()
            try! client.sendRaw(
                Array("POST /webhooks/apple HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n".utf8))
            let chunk = Array("1;".utf8) + [UInt8](repeating: 0x78, count: 1000) + Array("\r\na\r\n".utf8)
            let block = Array([[UInt8]](repeating: chunk, count: 1000).joined())
            for _ in 0..<64 { try! client.sendRaw(block) }  // 64 MB on the wire for 64,000 bytes of body
            try! client.sendRaw(Array("d\r\nsignedPayload\r\n0\r\n\r\n".utf8))
            let response = try! client.readResponse(method: .post)
            let grown = peakResidentKiB() - before
            server.stop()
            let decoded = response.status == .ok && response.bodyText.contains("\"bytes\":64013")
            exit(decoded && before > 0 && grown < 32 * 1024 ? 0 : 1)
        }
    }

    @Test func slowHeadersGet408() throws {
        let server = try TestServer(timeouts: .init(head: .milliseconds(300)))
        defer { server.stop() }
        let client = server.client()
        let start = monotonicNow()
        try client.sendRaw(Array("GET /healthz HTTP/1.1\r\nHo".utf8))
        let reply = String(decoding: try client.readUntilClosed(), as: UTF8.self)
        #expect(reply.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
        #expect(reply.contains("REQUEST_TIMEOUT"))
        #expect(milliseconds(since: start) >= 280)
    }

    @Test func dribblingHeadersStillGet408AtTheDeadline() throws {
        let server = try TestServer(timeouts: .init(head: .milliseconds(400)))
        defer { server.stop() }
        let client = server.client()
        let start = monotonicNow()
        // One byte every 50 ms keeps the socket busy but never completes the head.
        for byte in "GET /healthz HTTP/1.1\r\nX: ".utf8 {
            if milliseconds(since: start) > 700 { break }
            try? client.sendRaw([byte])
            usleep(50_000)
        }
        let reply = String(decoding: (try? client.readUntilClosed()) ?? [], as: UTF8.self)
        #expect(reply.hasPrefix("HTTP/1.1 408"))
    }

    @Test func slowBodyGets408() throws {
        let server = try TestServer(timeouts: .init(body: .milliseconds(300)))
        defer { server.stop() }
        let client = server.client()
        try client.sendRaw(Array("POST /webhooks/apple HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\nabc".utf8))
        let reply = String(decoding: try client.readUntilClosed(), as: UTF8.self)
        #expect(reply.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
    }

    @Test func idleKeepAliveConnectionIsClosed() throws {
        let server = try TestServer(timeouts: .init(idle: .milliseconds(200)))
        defer { server.stop() }
        let client = server.client()
        _ = try client.send(.get, "/healthz")
        usleep(150_000)
        #expect(server.server.openConnections == 1)
        let closed = try client.readUntilClosed()
        #expect(closed.isEmpty)
        #expect(server.server.openConnections == 0)
        // The client reconnects transparently for the next request.
        #expect(try client.send(.get, "/healthz").status == .ok)
    }

    @Test func aNewConnectionThatSendsNothingIsClosedAfterTheHeadTimeoutNotTheIdleOne() throws {
        let server = try TestServer(timeouts: .init(head: .milliseconds(200), idle: .seconds(30)))
        defer { server.stop() }
        let client = server.client()
        try client.sendRaw([])  // connects, sends nothing
        usleep(100_000)
        #expect(server.server.openConnections == 1)
        let started = ContinuousClock.now
        #expect(try client.readUntilClosed().isEmpty)
        #expect(ContinuousClock.now - started < .seconds(5), "held for the idle timeout")
        #expect(server.server.openConnections == 0)
        // After a request, the keep-alive wait is the idle timeout again.
        let kept = server.client()
        _ = try kept.send(.get, "/healthz")
        usleep(500_000)
        #expect(server.server.openConnections == 1)
    }

    @Test func expectContinueGetsAnInterimResponse() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = server.client()
        try client.sendRaw(
            Array("POST /webhooks/apple HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 13\r\n\r\n".utf8)
        )
        let interim = try client.readRaw(count: 25)
        #expect(String(decoding: interim, as: UTF8.self) == "HTTP/1.1 100 Continue\r\n\r\n")
        try client.sendRaw(Array("signedPayload".utf8))
        #expect(try client.readResponse(method: .post).status == .ok)
    }

    /// A request refused from its head alone gets its answer instead of 100 Continue: the client never sends the
    /// body, and the connection closes.
    @Test(arguments: [
        ("POST /v1/admin/link HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n", 403),
        ("POST /nowhere HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n", 404),
        ("PUT /webhooks/apple HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n", 405),
    ])
    func expectContinueRefusedFromTheHeadGetsNoInterimResponse(head: String, status: Int) throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = server.client()
        try client.sendRaw(Array(head.utf8))
        let reply = String(decoding: try client.readUntilClosed(), as: UTF8.self)
        #expect(reply.hasPrefix("HTTP/1.1 \(status) "), "\(reply)")
        #expect(!reply.contains("100 Continue"))
        #expect(reply.contains("Connection: close\r\n"))
    }

    @Test func expectContinueWithAGoodTokenGetsTheInterimResponse() throws {
        let application = makeTestApplication(adminToken: "admin-secret")
        let server = try TestServer(application: application)
        defer { server.stop() }
        let client = server.client()
        try client.sendRaw(
            Array(
                ("POST /v1/admin/link HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer admin-secret\r\n"
                    + "Expect: 100-continue\r\nContent-Length: 2\r\n\r\n").utf8))
        #expect(String(decoding: try client.readRaw(count: 25), as: UTF8.self) == "HTTP/1.1 100 Continue\r\n\r\n")
        try client.sendRaw(Array("{}".utf8))
        #expect(try client.readResponse(method: .post).status == .ok)
    }

    @Test func http10ConnectionClosesAfterTheResponse() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = server.client()
        try client.sendRaw(Array("GET /healthz HTTP/1.0\r\n\r\n".utf8))
        let reply = String(decoding: try client.readUntilClosed(), as: UTF8.self)
        #expect(reply.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(reply.contains("Connection: close\r\n"))
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = server.client()
        try client.sendRaw(Array("GET /healthz HTTP/1.1\r\nHost: h\r\n\r\nGET /nope HTTP/1.1\r\nHost: h\r\n\r\n".utf8))
        #expect(try client.readResponse().status == .ok)
        #expect(try client.readResponse().status == .notFound)
    }

    @Test func accessLogHasOneJSONLinePerRequestIncludingRefusedOnes() throws {
        let log = LogLines()
        let server = try TestServer(accessLog: log.accessLog)
        let client = server.client()
        _ = try client.send(.get, "/v1/users/7/entitlement?at=secret", headers: ["Authorization": "Bearer read-secret"])
        try client.sendRaw(Array("BROKEN\r\n\r\n".utf8))
        _ = try client.readUntilClosed()
        server.stop()
        let lines = log.all
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.hasPrefix("{\"time\":\"") && $0.hasSuffix("}\n") })
        #expect(lines[0].contains("\"method\":\"GET\",\"path\":\"/v1/users/7/entitlement\""))
        #expect(lines[0].contains("\"route\":\"/v1/users/{id}/entitlement\",\"status\":200"))
        #expect(!lines[0].contains("secret"))
        #expect(lines[1].contains("\"method\":null,\"path\":null,\"route\":null,\"status\":400"))
    }

    @Test func metricsCountRequestsByRouteAndStatus() throws {
        let metrics = ServerMetrics()
        let server = try TestServer(metrics: metrics)
        defer { server.stop() }
        let client = server.client()
        for _ in 0..<3 { _ = try client.send(.get, "/healthz") }
        _ = try client.send(.get, "/v1/users/1/entitlement")
        _ = try client.send(.get, "/missing/1")
        _ = try client.send(.delete, "/healthz")
        #expect(metrics.renderPrometheus().contains("ledger_http_connections_open 1"))
        server.stop()  // Requests are counted just after their response is sent; stopping waits for the last.
        let text = metrics.renderPrometheus()
        #expect(text.contains("ledger_http_requests_total{method=\"GET\",route=\"/healthz\",status=\"200\"} 3"))
        #expect(
            text.contains(
                "ledger_http_requests_total{method=\"GET\",route=\"/v1/users/{id}/entitlement\",status=\"401\"} 1"))
        #expect(text.contains("ledger_http_requests_total{method=\"GET\",route=\"unmatched\",status=\"404\"} 1"))
        // A known path with a method it does not take is counted under its route.
        #expect(text.contains("ledger_http_requests_total{method=\"DELETE\",route=\"/healthz\",status=\"405\"} 1"))
        #expect(text.contains("ledger_http_request_duration_seconds_count{route=\"/healthz\"} 4"))
        #expect(text.contains("ledger_http_connections_open 0"))
        #expect(text.contains("ledger_http_connections_accepted_total 1"))
    }

    @Test func concurrentClientsAreServedInParallel() throws {
        let server = try TestServer()
        defer { server.stop() }
        let start = monotonicNow()
        let failures = Atomic<Int>(0)
        var threads: [pthread_t] = []
        for _ in 0..<8 {
            let port = server.port
            var thread = pthread_t()
            let box = Unmanaged.passRetained(
                ThreadBody {
                    let client = HTTPClient(port: port)
                    for _ in 0..<3 {
                        if (try? client.send(.get, "/sleep?ms=100"))?.status != .ok {
                            failures.add(1, ordering: .relaxed)
                        }
                    }
                }
            ).toOpaque()
            pthread_create(
                &thread, nil,
                {
                    Unmanaged<ThreadBody>.fromOpaque($0!).takeRetainedValue().run()
                    return nil
                }, box)
            threads.append(thread)
        }
        for thread in threads { pthread_join(thread, nil) }
        #expect(failures.load(ordering: .relaxed) == 0)
        // 24 requests of 100 ms each on 8 connections: about 300 ms when served in parallel, 2.4 s if not.
        #expect(milliseconds(since: start) < 1500)
    }

    @Test func bindingABusyPortFailsWithAddressInUse() throws {
        let server = try TestServer()
        defer { server.stop() }
        let second = try HTTPServer(
            configuration: .init(host: "127.0.0.1", port: server.port), responder: makeTestApplication())
        #expect(throws: SystemError(.addressInUse, call: "bind", message: "")) { try second.start() }
    }
}

/// A closure run on a raw pthread.
final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
