import LedgerHTTP
import LedgerTesting
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The fake App Store Server API behind a pause: each Get Notification History page is answered only after
/// ``pageDelayMilliseconds``, so that a pull takes long enough for a test to kill the puller in the middle of it.
final class SlowAppStoreAPI: HTTPResponder {
    let fake: FakeAppStoreAPI
    private let delay = Mutex(0)
    private let pages = Mutex(0)
    private let server = Mutex<HTTPServer?>(nil)

    init(_ fake: FakeAppStoreAPI) { self.fake = fake }

    /// How long each history page waits, in milliseconds (0: none).
    var pageDelayMilliseconds: Int {
        get { delay.withLock { $0 } }
        set { delay.withLock { $0 = newValue } }
    }

    /// The Get Notification History requests received so far (answered or still waiting).
    var historyRequests: Int { pages.withLock { $0 } }

    /// Serves on 127.0.0.1 at a free port; returns `http://127.0.0.1:PORT`.
    func start() throws -> String {
        let server = try HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: self)
        let port = try server.start()
        self.server.withLock { $0 = server }
        return "http://127.0.0.1:\(port)"
    }

    /// Stops serving.
    func stop() {
        server.withLock { $0?.shutdown(graceful: false) }
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        if request.path == "/inApps/v1/notifications/history" {
            pages.withLock { $0 += 1 }
            let pause = pageDelayMilliseconds
            if pause > 0 { usleep(UInt32(pause) * 1000) }
        }
        return fake.respond(to: request)
    }
}
