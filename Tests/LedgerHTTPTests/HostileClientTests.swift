import LedgerHTTP
import LedgerSystem
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Clients that would starve the server: slow readers, readers that never read, more heavy reads than cores, and
/// slots held on one listener while another must keep answering.
@Suite struct HostileClientTests {
    @Test func aSlowReaderIsCutOffAtTheSendDeadline() throws {
        let server = try TestServer(timeouts: HTTPServer.Timeouts(write: .seconds(1)))
        defer { server.stop() }
        let client = server.client(timeout: .seconds(5))
        try client.sendRaw(Array("GET /big?mib=32 HTTP/1.1\r\nHost: test\r\n\r\n".utf8))
        let start = monotonicNow()
        var received = 0
        var cut = false
        // 32 KiB every 100 ms: bytes keep flowing, far too slowly for 32 MiB.
        while milliseconds(since: start) < 8000 {
            do {
                received += try client.readRaw(count: 32 * 1024).count
            } catch {
                cut = true
                break
            }
            usleep(100_000)
        }
        #expect(cut, "the slow reader was still being served after 8 s")
        #expect(milliseconds(since: start) < 4000)
        #expect(received < 32 << 20)
        usleep(100_000)
        #expect(server.server.openConnections == 0)
        #expect(try server.client().send(.get, "/healthz").status == .ok)
    }

    @Test func aClientThatNeverReadsReleasesItsConnectionAtTheDeadline() throws {
        let metrics = ServerMetrics()
        let server = try TestServer(timeouts: HTTPServer.Timeouts(write: .milliseconds(500)), metrics: metrics)
        defer { server.stop() }
        let client = server.client()
        try client.sendRaw(Array("GET /big?mib=32 HTTP/1.1\r\nHost: test\r\n\r\n".utf8))
        usleep(200_000)
        #expect(server.server.openConnections == 1)
        let start = monotonicNow()
        while server.server.openConnections > 0 && milliseconds(since: start) < 5000 { usleep(20_000) }
        #expect(server.server.openConnections == 0)
        #expect(milliseconds(since: start) < 2000)
        #expect(metrics.renderPrometheus().contains("ledger_http_responses_cut_total 1"))
    }

    @Test func responsesPastTheSendBudgetGet503WithRetryAfter() throws {
        let server = try TestServer(
            timeouts: HTTPServer.Timeouts(write: .seconds(3)), maxBufferedBytes: 20 << 20)
        defer { server.stop() }
        // 16 MiB held by a client that does not read: more than the kernel's socket buffers take.
        let holder = server.client()
        try holder.sendRaw(Array("GET /big?mib=16 HTTP/1.1\r\nHost: test\r\n\r\n".utf8))
        usleep(300_000)
        let refused = try server.client().send(.get, "/big?mib=8")
        #expect(refused.status == .serviceUnavailable)
        #expect(refused.headers["Retry-After"] == "1")
        #expect(errorStatus(of: refused) == "UNAVAILABLE")
        // Small answers still fit beside it.
        #expect(try server.client().send(.get, "/healthz").status == .ok)
        holder.close()
    }

    @Test func aSecondServerAnswersWhileEveryConnectionOfTheFirstIsHeld() throws {
        let api = try TestServer(maxConnections: 4)
        let webhook = try TestServer(maxConnections: 4)
        defer {
            api.stop(graceful: false)
            webhook.stop()
        }
        // Every API slot in the middle of a request head: busy, not idle, so none can be evicted.
        let held = (0..<4).map { _ in api.client() }
        for client in held { try client.sendRaw(Array("GET /healthz HTTP/1.1\r\n".utf8)) }
        usleep(100_000)
        #expect(try api.client().send(.get, "/healthz").status == .serviceUnavailable)
        let start = monotonicNow()
        #expect(try webhook.client().send(.get, "/healthz").status == .ok)
        let body = Array(#"{"signedPayload":"x"}"#.utf8)
        #expect(try webhook.client().send(.post, "/webhooks/apple", body: body).status == .ok)
        #expect(milliseconds(since: start) < 500)
    }

    @Test func aServersConnectionThreadsRunAtItsNiceness() throws {
        var router = Router()
        router.get("/nice") { _ in
            // Field 19 of /proc/thread-self/stat, after the parenthesised command name.
            guard let file = fopen("/proc/thread-self/stat", "r") else { return .text(.ok, "?") }
            defer { fclose(file) }
            var line = [CChar](repeating: 0, count: 1024)
            _ = fgets(&line, Int32(line.count), file)
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let fields = text[text.lastIndex(of: ")")!...].split(separator: " ")
            return .text(.ok, String(fields[17]))
        }
        let server = try HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0, priority: ThreadPriority(niceness: 7)),
            responder: HTTPApplication(router: router))
        let port = try server.start()
        defer { server.shutdown() }
        // Seven nicer than the process (the test runner may itself run niced).
        let process = Int(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(getpid())))
        #expect(try HTTPClient(port: port).send(.get, "/nice").bodyText == String(min(19, process + 7)))
    }

    @Test func aServersConnectionThreadsAskForItsSlice() throws {
        var router = Router()
        router.get("/slice") { _ in .text(.ok, ThreadPriority.currentSliceMicroseconds.map(String.init) ?? "none") }
        let server = try HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0, priority: ThreadPriority(sliceMicroseconds: 250)),
            responder: HTTPApplication(router: router))
        let port = try server.start()
        defer { server.shutdown() }
        let answer = try HTTPClient(port: port).send(.get, "/slice").bodyText
        if try kernelHonoursSlices() {
            #expect(answer == "250")
        } else {
            #expect(answer != "250")
        }
    }

    @Test func aLanesRequestsRunOnTheirOwnWorkersAtTheirPriority() throws {
        let release = Atomic<Bool>(false)
        var router = Router()
        router.get("/hold") { _ in
            while !release.load(ordering: .acquiring) { usleep(5_000) }
            return .text(.ok, "held")
        }
        router.get("/lane") { _ in
            .text(.ok, ThreadPriority.currentSliceMicroseconds.map(String.init) ?? "none")
        }
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0, workers: 1)
        configuration.lane = HTTPServer.Lane(workers: 1, priority: ThreadPriority(sliceMicroseconds: 250)) {
            $0 == .get && $1 == "/lane"
        }
        let server = try HTTPServer(configuration: configuration, responder: HTTPApplication(router: router))
        let port = try server.start()
        defer { server.shutdown() }
        // The server's one worker is held; the lane's request is answered on the lane's.
        let holder = HTTPClient(port: port)
        try holder.sendRaw(Array("GET /hold HTTP/1.1\r\nHost: test\r\n\r\n".utf8))
        usleep(100_000)
        let answer = try HTTPClient(port: port).send(.get, "/lane")
        #expect(answer.status == .ok)
        release.store(true, ordering: .releasing)
        #expect(try holder.readResponse().status == .ok)
        // Its threads take the lane's priority.
        if try kernelHonoursSlices() { #expect(answer.bodyText == "250") }
    }

    /// Whether a thread asking for a 250 µs slice gets it: kernels before 6.12 accept a fair thread's slice and
    /// ignore it. Probed on a thread of our own.
    func kernelHonoursSlices() throws -> Bool {
        let probe = Mutex<Int?>(nil)
        joinThread(
            try startThread(detached: false) {
                ThreadPriority(sliceMicroseconds: 250).apply()
                probe.withLock { $0 = ThreadPriority.currentSliceMicroseconds }
            })
        return probe.withLock { $0 } == 250
    }

    @Test func theAdmissionGateQueuesThenRefusesWith503() throws {
        let gate = AdmissionGate(concurrency: 1, queueLimit: 1, queueTimeout: .seconds(5))
        let release = Atomic<Bool>(false)
        let results = Mutex<[String]>([])
        func start(_ name: String) -> pthread_t {
            var thread = pthread_t()
            let box = Unmanaged.passRetained(
                Work {
                    let outcome =
                        (try? gate.run { () -> String in
                            while !release.load(ordering: .acquiring) { usleep(5_000) }
                            return name
                        }) ?? "refused"
                    results.withLock { $0.append(outcome) }
                })
            pthread_create(
                &thread, nil,
                {
                    Unmanaged<Work>.fromOpaque($0!).takeRetainedValue().body()
                    return nil
                }, box.toOpaque())
            return thread
        }
        let first = start("first")
        while gate.load.running < 1 { usleep(1_000) }
        let second = start("second")
        while gate.load.waiting < 1 { usleep(1_000) }
        // One running and one waiting: the third is refused at once.
        let began = monotonicNow()
        var refusal: HTTPError?
        do {
            _ = try gate.run { "third" }
        } catch let error as HTTPError {
            refusal = error
        }
        #expect(milliseconds(since: began) < 100)
        #expect(refusal?.status == .serviceUnavailable)
        #expect(refusal?.headers["Retry-After"] == "1")
        #expect(refusal?.message.contains("too many heavy reads at once") == true)
        release.store(true, ordering: .releasing)
        pthread_join(first, nil)
        pthread_join(second, nil)
        #expect(results.withLock { $0 }.sorted() == ["first", "second"])
        #expect(gate.load.running == 0 && gate.load.waiting == 0)
    }

    @Test func aQueuedRequestIsRefusedWhenItsTurnDoesNotCome() throws {
        let gate = AdmissionGate(concurrency: 1, queueLimit: 4, queueTimeout: .milliseconds(200))
        let application = makeGatedApplication(gate)
        let server = try TestServer(application: application)
        defer { server.stop() }
        let holder = server.client()
        try holder.sendRaw(Array("GET /gated?ms=1500 HTTP/1.1\r\nHost: test\r\n\r\n".utf8))
        while gate.load.running < 1 { usleep(1_000) }
        let began = monotonicNow()
        let refused = try server.client().send(.get, "/gated?ms=0")
        #expect(refused.status == .serviceUnavailable)
        #expect(refused.headers["Retry-After"] == "1")
        #expect(milliseconds(since: began) >= 150 && milliseconds(since: began) < 1000)
        #expect(try holder.readResponse().status == .ok)
        #expect(try server.client().send(.get, "/gated?ms=0").status == .ok)
    }
}

/// A closure to run on a thread.
private final class Work: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

/// `GET /gated?ms=N`: sleeps N ms behind `gate`.
private func makeGatedApplication(_ gate: AdmissionGate) -> HTTPApplication {
    var router = Router()
    router.get("/gated", middlewares: [gate]) { request in
        usleep(UInt32(Int(request.query("ms") ?? "0") ?? 0) * 1000)
        return .text(.ok, "done")
    }
    return HTTPApplication(router: router)
}
