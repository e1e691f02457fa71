import LedgerHTTP
import LedgerJSON
import LedgerSystem
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// When the disk is full or failing, the webhook answers 503 (Apple retries), nothing half-written
/// survives, every earlier 200 stays true, and the server takes notifications again once space returns.
@Suite struct WriteFailureTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var operation: Fault.Operation
        var errno: Int32
        var path: String
        var testDescription: String { "\(operation) \(errno == ENOSPC ? "ENOSPC" : "EIO") on \(path)" }
    }

    static let cases: [Case] = [
        Case(operation: .write, errno: ENOSPC, path: ".seg"),
        Case(operation: .write, errno: ENOSPC, path: "/evidence/"),
        Case(operation: .fsync, errno: ENOSPC, path: ".seg"),
        Case(operation: .fsync, errno: EIO, path: ".seg"),
        Case(operation: .fsync, errno: EIO, path: "/evidence/"),  // the evidence made durable (the pack's fdatasync)
    ]

    @Test(arguments: cases)
    func aWriteFailureIs503AndLosesNothing(_ fault: Case) throws {
        let harness = try FaultyLedgerHarness()
        for number in 1...3 { #expect(try harness.post(try harness.notification(number)).status.code == 200) }

        harness.fileSystem.inject(Fault(fault.operation, .error(fault.errno), pathContains: fault.path))
        for number in 4...5 {
            let refused = try harness.post(try harness.notification(number))
            #expect(refused.status.code == 503)
            #expect(refused.json?["error"]?["status"] == "UNAVAILABLE")
            #expect(refused.json?["error"]?["message"]?.string?.contains("retry later") == true)
            #expect(refused.headers["Retry-After"] != nil)
        }
        #expect(harness.fileSystem.firedCount > 0)
        #expect(harness.head == 3)
        // Reads keep working while writes fail.
        #expect(try harness.get("/v1/users/42/history").json?.array?.count == 3)
        let health = try harness.get("/healthz").json
        #expect(health?["head"] == 3)
        #expect(health?["status"] == "degraded", "the webhook cannot write")
        #expect(health?["log"]?["writable"] == false)

        harness.fileSystem.clearFaults()
        for number in 4...5 {
            let accepted = try harness.post(try harness.notification(number))
            #expect(accepted.status.code == 200)
            #expect(accepted.json?["seq"] == .integer(Int64(number)))
            #expect(accepted.json?["duplicate"] == false)
        }
        #expect(try harness.post(try harness.notification(2)).json?["duplicate"] == true)
        #expect(try harness.get("/healthz").json?["status"] == "ok", "an append succeeded again")

        #expect(try harness.keysOnDisk() == (1...5).map(FaultyLedgerHarness.uuid))
        #expect(try harness.verifies())
        #expect(try harness.api.pipeline.quarantine.items().isEmpty, "a 503 is not a rejection")
        for seq in UInt64(1)...5 {
            let digest = try #require(try harness.api.ledger.entry(seq: seq).record.evidence)
            #expect(try harness.api.ledger.evidence(digest) != nil, "the evidence of record \(seq) is stored")
        }
    }

    /// Eight clients behave as Apple does (retry until 200) while the disk fills up and frees again:
    /// every notification ends up in the log exactly once and the log verifies.
    @Test func eightRetryingClientsLoseNothingWhileTheDiskIsFull() throws {
        let harness = try FaultyLedgerHarness()
        let port = try harness.serve()
        let perClient = 6
        let bodies = try (0..<8 * perClient).map { try harness.notification(100 + $0) }
        let unavailable = Atomic<Int>(0)
        let failures = Collected<String>()
        let fileSystem = harness.fileSystem
        let api = harness.api

        concurrently(9) { index in
            if index == 8 {
                // The operator's view: the disk fills after a few appends and is freed once clients see 503s.
                Self.waitUntil { api.ledger.head.seq >= 8 }
                fileSystem.inject(Fault(.write, .error(ENOSPC), pathContains: ".seg"))
                Self.waitUntil { unavailable.load(ordering: .relaxed) >= 8 }
                fileSystem.clearFaults()
                return
            }
            let client = HTTPClient(port: port, timeout: .seconds(10))
            for body in bodies[(index * perClient)..<((index + 1) * perClient)] {
                var delivered = false
                var attempts = 0
                while !delivered && attempts < 2000 {
                    attempts += 1
                    let status = (try? client.send(.post, "/webhooks/apple", body: body))?.status.code ?? -1
                    switch status {
                    case 200: delivered = true
                    case 503:
                        unavailable.add(1, ordering: .relaxed)
                        usleep(2000)
                    default: failures.append("client \(index): status \(status)")
                    }
                }
                if !delivered { failures.append("client \(index): never delivered") }
            }
        }

        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(unavailable.load(ordering: .relaxed) >= 8)
        #expect(harness.head == UInt64(bodies.count))
        let keys = try harness.keysOnDisk()
        #expect(keys.count == bodies.count)
        #expect(Set(keys) == Set((0..<bodies.count).map { FaultyLedgerHarness.uuid(100 + $0) }))
        #expect(try harness.verifies())
    }

    /// Polls `condition` every millisecond for up to 20 s.
    static func waitUntil(_ condition: () -> Bool) {
        for _ in 0..<20_000 where !condition() { usleep(1000) }
    }
}
