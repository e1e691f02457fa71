import LedgerHTTP
import LedgerSystem
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The event-driven layer: connections cost memory, not a thread; handlers run on a fixed pool of workers.
@Suite struct EventLoopTests {
    /// A route that holds its worker until opened, counting how many run at once.
    final class Hold: Sendable {
        let running = Atomic<Int>(0)
        let most = Atomic<Int>(0)
        let opened = Atomic<Bool>(false)

        func handle() -> HTTPResponse {
            let now = running.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
            var seen = most.load(ordering: .acquiring)
            while now > seen {
                let (exchanged, original) = most.compareExchange(
                    expected: seen, desired: now, ordering: .acquiringAndReleasing)
                if exchanged { break }
                seen = original
            }
            while !opened.load(ordering: .acquiring) { usleep(1000) }
            running.wrappingSubtract(1, ordering: .acquiringAndReleasing)
            return .text(.ok, "held")
        }
    }

    @Test func handlersRunOnAFixedPoolOfWorkersAndTheRestWaitTheirTurn() throws {
        let hold = Hold()
        var router = Router()
        router.get("/hold") { _ in hold.handle() }
        let server = try HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0, workers: 2), responder: HTTPApplication(router: router))
        let port = try server.start()
        defer { server.shutdown() }
        let statuses = Mutex<[Int]>([])
        let runningWhileHeld = Atomic<Int>(-1)
        runThreads(6) { index in
            if index == 5 {
                usleep(400_000)
                runningWhileHeld.store(hold.running.load(ordering: .acquiring), ordering: .releasing)
                hold.opened.store(true, ordering: .releasing)
                return
            }
            let status = (try? HTTPClient(port: port).send(.get, "/hold").status.code) ?? -1
            statuses.withLock { $0.append(status) }
        }
        #expect(runningWhileHeld.load(ordering: .acquiring) == 2, "five requests, two workers")
        #expect(hold.most.load(ordering: .acquiring) == 2)
        #expect(statuses.withLock { $0 } == [200, 200, 200, 200, 200])
    }

    @Test func aClientThatDoesNotReadDelaysNoOtherConnection() throws {
        let server = try TestServer(timeouts: HTTPServer.Timeouts(write: .seconds(5)))
        defer { server.stop() }
        let holder = server.client()
        try holder.sendRaw(Array("GET /big?mib=16 HTTP/1.1\r\nHost: test\r\n\r\n".utf8))
        usleep(200_000)
        let other = server.client()
        for _ in 0..<20 {
            let start = monotonicNow()
            #expect(try other.send(.get, "/healthz").status == .ok)
            #expect(milliseconds(since: start) < 500)
        }
        #expect(server.server.openConnections == 2)
    }

    @Test func hundredsOfConnectionsMidRequestAreServedByAFewWorkers() throws {
        let server = try HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0, maxConnections: 1000, workers: 2),
            responder: makeTestApplication())
        let port = try server.start()
        defer { server.shutdown() }
        let clients = (0..<300).map { _ in HTTPClient(port: port) }
        for client in clients { try client.sendRaw(Array("GET /healthz HTTP/1.1\r\n".utf8)) }
        usleep(200_000)
        #expect(server.openConnections == 300)
        for client in clients { try client.sendRaw(Array("Host: test\r\n\r\n".utf8)) }
        var served = 0
        for client in clients where (try? client.readResponse().status) == .ok { served += 1 }
        #expect(served == 300)
        // The connections stay open (keep-alive) and take the next request.
        #expect(try clients[17].send(.get, "/healthz").status == .ok)
    }

    @Test func pipelinedRequestsAreAnsweredInOrderAcrossWorkers() throws {
        var router = Router()
        router.get("/sleep") { request in
            let milliseconds = Int(request.query("ms") ?? "0") ?? 0
            usleep(UInt32(milliseconds * 1000))
            return .text(.ok, "slept \(milliseconds)")
        }
        let server = try HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0, workers: 4), responder: HTTPApplication(router: router))
        let port = try server.start()
        defer { server.shutdown() }
        let client = HTTPClient(port: port)
        let delays = [80, 0, 40, 0, 10]
        let pipelined = delays.map { "GET /sleep?ms=\($0) HTTP/1.1\r\nHost: test\r\n\r\n" }.joined()
        try client.sendRaw(Array(pipelined.utf8))
        for delay in delays { #expect(try client.readResponse().bodyText == "slept \(delay)") }
    }
}
