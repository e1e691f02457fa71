import LedgerAPI
import LedgerCore
import LedgerHTTP
import LedgerJSON
import LedgerLog
import LedgerService
import LedgerSystem
import LedgerTesting
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The ledger API over a fresh data directory whose file layer can be made to fail, answering in-process
/// or over a loopback server.
final class FaultyLedgerHarness {
    let directory = TemporaryDirectory()
    let fileSystem = FaultInjectingFileSystem()
    let pki = TestPKI.shared
    let api: LedgerAPI
    let application: HTTPApplication
    private var server: HTTPServer?

    init() throws {
        let ledger = try Ledger.openWriter(at: directory.path, environment: .sandbox, fileSystem: fileSystem)
        let verifier = try pki.verifier()
        let pipeline = IngestPipeline(
            ledger: ledger, verifier: verifier, quarantine: Quarantine(dataDirectory: directory.path))
        api = LedgerAPI(
            pipeline: pipeline, readToken: nil, adminToken: nil,
            metrics: LedgerMetrics(ledger: ledger, verifier: verifier))
        application = api.application()
    }

    deinit {
        server?.shutdown(graceful: false)
        api.ledger.close()
    }

    /// The ledger's head seq.
    var head: UInt64 { api.ledger.head.seq }

    /// Starts a loopback server on an ephemeral port for this harness and returns the port.
    func serve() throws -> UInt16 {
        let server = try HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: application)
        self.server = server
        return try server.start()
    }

    /// A webhook POST answered in-process.
    func post(_ body: [UInt8]) throws -> HTTPResponse {
        application.respond(to: try HTTPRequest(method: .post, target: "/webhooks/apple", body: body))
    }

    /// A GET answered in-process.
    func get(_ target: String) throws -> HTTPResponse {
        application.respond(to: try HTTPRequest(method: .get, target: target))
    }

    /// The webhook body of notification `number`: a renewal of user 42's subscription with its own
    /// notificationUUID and transaction id.
    func notification(_ number: Int) throws -> [UInt8] {
        TestPKI.body(
            try pki.signedNotification(
                type: "DID_RENEW", uuid: Self.uuid(number),
                transaction: TestPKI.Payloads.transaction(transactionId: "30000000\(1000 + number)")))
    }

    /// The notificationUUID of notification `number`.
    static func uuid(_ number: Int) -> String { TestPKI.Payloads.uuid(number) }

    /// The idempotency keys (notificationUUIDs) of every record on disk, in seq order, read by a fresh
    /// reader as a restarted server would see them.
    func keysOnDisk() throws -> [String] {
        let reader = try EventLog.openReader(at: directory.path)
        defer { reader.close() }
        var keys: [String] = []
        try reader.forEach(from: 1) { record in keys.append(record.idempotencyKey) }
        return keys
    }

    /// Whether `ledger verify` would pass on the data directory.
    func verifies() throws -> Bool { try EventLog.verify(at: directory.path).ok }
}

/// Runs `body(index)` on `count` raw threads released together, and waits for all of them.
func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let ready = Atomic<Int>(0)
    var threads: [pthread_t] = []
    for index in 0..<count {
        let work = ThreadWork {
            ready.add(1, ordering: .acquiringAndReleasing)
            while ready.load(ordering: .acquiring) < count { sched_yield() }
            body(index)
        }
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            {
                Unmanaged<ThreadWork>.fromOpaque($0!).takeRetainedValue().run()
                return nil
            }, Unmanaged.passRetained(work).toOpaque())
        precondition(status == 0, "pthread_create failed: \(status)")
        threads.append(thread)
    }
    for thread in threads { pthread_join(thread, nil) }
}

/// A closure run on a raw thread.
final class ThreadWork: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

/// Collects values from several threads.
final class Collected<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])
    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}
