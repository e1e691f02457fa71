import LedgerHTTP
import LedgerJSON
import LedgerSystem
import LedgerTesting
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The HTTP crash test's sender: several keep-alive clients deliver every body of a file as Apple does,
/// retrying on a refused or broken connection and on 503 until the server answers 200, and acknowledge
/// each 200 in the ack file. The server may be SIGKILLed and restarted underneath at any moment.
struct CrashClient {
    var port: UInt16
    var clients: Int
    /// Seconds after which a body that still has no 200 counts as a failure.
    var giveUpSeconds: Double

    /// What the clients saw, summed.
    struct Tally: Sendable {
        var acknowledged = 0
        var duplicates = 0
        var connectionErrors = 0
        var unavailable = 0
        var failures: [String] = []

        mutating func add(_ other: Tally) {
            acknowledged += other.acknowledged
            duplicates += other.duplicates
            connectionErrors += other.connectionErrors
            unavailable += other.unavailable
            failures += other.failures
        }
    }

    /// Delivers every notification once (each to one client, in file order) and returns the tally.
    func deliver(_ bodies: [[UInt8]], acks: AcknowledgementLog) -> Tally {
        let next = Atomic<Int>(0)
        let total = Mutex(Tally())
        let (port, giveUp) = (self.port, giveUpSeconds)
        runThreads(clients) { _ in
            var tally = Tally()
            let client = HTTPClient(port: port, timeout: .seconds(15))
            while true {
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < bodies.count else { break }
                Self.deliver(bodies[index], line: index, client: client, acks: acks, giveUp: giveUp, tally: &tally)
            }
            let result = tally
            total.withLock { $0.add(result) }
        }
        return total.withLock { $0 }
    }

    private static func deliver(
        _ body: [UInt8], line: Int, client: HTTPClient, acks: AcknowledgementLog, giveUp: Double, tally: inout Tally
    ) {
        let deadline = SystemClock.monotonicSeconds() + giveUp
        let headers: HTTPHeaders = ["Content-Type": "application/json"]
        while SystemClock.monotonicSeconds() < deadline {
            let response: HTTPResponse
            do {
                response = try client.send(.post, "/webhooks/apple", headers: headers, body: body)
            } catch {
                // Refused (the server is down) or cut (it was killed mid-request): Apple retries later.
                client.close()
                tally.connectionErrors += 1
                usleep(5_000)
                continue
            }
            switch response.status.code {
            case 200:
                let json = try? JSONValue.parse(response.body)
                guard let seq = json?["seq"]?.int64.flatMap(UInt64.init(exactly:)) else {
                    tally.failures.append("body \(line): 200 without a seq: \(response.bodyText)")
                    return
                }
                acks.acknowledge(line: line, seq: seq)
                tally.acknowledged += 1
                if json?["duplicate"]?.bool == true { tally.duplicates += 1 }
                return
            case 503:
                tally.unavailable += 1
                usleep(5_000)
            default:
                tally.failures.append("body \(line): \(response.status.code) \(response.bodyText)")
                return
            }
        }
        tally.failures.append("body \(line): no 200 within \(giveUp) s")
    }
}
