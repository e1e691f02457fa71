import LedgerHTTP
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Graceful shutdown")
struct ShutdownTests {
    @Test func inFlightRequestFinishesAndNewConnectionsAreRefused() throws {
        let server = try TestServer()
        let port = server.port
        let result = Mutex<HTTPResponse?>(nil)
        var thread = pthread_t()
        let body = Unmanaged.passRetained(
            ThreadBody {
                let response = try? HTTPClient(port: port).send(.get, "/sleep?ms=400")
                result.withLock { $0 = response }
            }
        ).toOpaque()
        pthread_create(
            &thread, nil,
            {
                Unmanaged<ThreadBody>.fromOpaque($0!).takeRetainedValue().run()
                return nil
            }, body)
        // An idle keep-alive connection must not hold the shutdown up.
        let idle = server.client()
        _ = try idle.send(.get, "/healthz")
        usleep(100_000)
        let start = monotonicNow()
        server.stop()
        let waited = milliseconds(since: start)
        pthread_join(thread, nil)
        let response = try #require(result.withLock { $0 })
        #expect(response.status == .ok)
        #expect(response.bodyText == "slept 400")
        #expect(response.headers["Connection"] == "close")
        #expect(waited >= 200 && waited < 2000)
        #expect(throws: (any Error).self) { try HTTPClient(port: port).send(.get, "/healthz") }
    }

    @Test func drainTimeoutCutsOffRequestsThatTakeTooLong() throws {
        let server = try TestServer(timeouts: .init(drain: .milliseconds(200)))
        let port = server.port
        var thread = pthread_t()
        let body = Unmanaged.passRetained(
            ThreadBody {
                _ = try? HTTPClient(port: port).send(.get, "/sleep?ms=1000")
            }
        ).toOpaque()
        pthread_create(
            &thread, nil,
            {
                Unmanaged<ThreadBody>.fromOpaque($0!).takeRetainedValue().run()
                return nil
            }, body)
        usleep(100_000)
        let start = monotonicNow()
        server.stop()
        // The drain gives up after 200 ms; the handler then finishes its sleep and its connection closes.
        #expect(milliseconds(since: start) < 1900)
        pthread_join(thread, nil)
    }

    @Test func shutdownIsIdempotentAndSafeBeforeStart() throws {
        let never = try HTTPServer(configuration: .init(port: 0), responder: makeTestApplication())
        never.shutdown()
        let server = try TestServer()
        server.stop()
        server.stop(graceful: false)
        #expect(server.server.port == nil)
    }

    @Test func sigtermStopsRunGracefullyAndTheProcessExitsZero() async {
        await #expect(processExitsWith: .success) {
            let server = try! HTTPServer(configuration: .init(port: 0), responder: makeTestApplication())
            var announced = ""
            try! server.run { line in
                announced = line
                // Deliver SIGTERM from another thread once the server is ready, as an operator would.
                var thread = pthread_t()
                pthread_create(
                    &thread, nil,
                    { _ in
                        usleep(50_000)
                        kill(getpid(), SIGTERM)
                        return nil
                    }, nil)
                pthread_detach(thread)
            }
            exit(announced.hasPrefix("listening on http://127.0.0.1:") ? 0 : 3)
        }
    }
}
