import LedgerHTTP
import LedgerSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The attackers of ``HostileRun``, each kind on its own thread (the heavy readers on one thread each), `niceness`
/// nicer than the process.
enum HostileAttacks {
    static func start(
        apiPort: UInt16, headers: HTTPHeaders, niceness: Int32, from: UInt64, until end: UInt64,
        tally: Shared<HostileRun.Tally>
    ) -> [pthread_t] {
        let authorization = headers["Authorization"].map { "Authorization: \($0)\r\n" } ?? ""
        let openAPI = Array(
            String(repeating: "GET /openapi.yaml HTTP/1.1\r\nHost: attacker\r\n\r\n", count: 16).utf8)
        let heavy = Array(
            String(
                repeating: "GET /v1/events?after=0&limit=1000 HTTP/1.1\r\nHost: attacker\r\n\(authorization)\r\n",
                count: 8
            ).utf8)
        var threads: [pthread_t] = []
        // Slow readers: pipeline GET /openapi.yaml, then read 32 KiB every 4 s; reconnect when cut.
        threads.append(
            try! startThread(detached: false) {
                ThreadPriority(niceness: niceness).apply()
                sleep(until: from)
                var connections = [RawConnection?](repeating: nil, count: HostileRun.slowReaders)
                var cuts = 0
                while SystemClock.monotonicNanoseconds() < end {
                    for index in connections.indices {
                        if let connection = connections[index], connection.receive(upTo: 32 * 1024) != nil { continue }
                        if connections[index] != nil { cuts += 1 }
                        connections[index] = RawConnection(port: apiPort)
                        _ = connections[index]?.send(openAPI)
                    }
                    sleep(until: min(end, SystemClock.monotonicNanoseconds() + 4_000_000_000))
                }
                let result = cuts
                tally.withLock { $0.slowReaderCuts = result }
            })
        // Slowloris: a head one header line a second, never finished; a fresh connection when cut.
        threads.append(
            try! startThread(detached: false) {
                ThreadPriority(niceness: niceness).apply()
                sleep(until: from)
                var connections = [RawConnection?](repeating: nil, count: HostileRun.slowloris)
                var reconnects = 0
                let line = Array("X-Slow: 1\r\n".utf8)
                while SystemClock.monotonicNanoseconds() < end {
                    for index in connections.indices {
                        if let connection = connections[index], !connection.isClosed, connection.send(line) { continue }
                        if connections[index] != nil { reconnects += 1 }
                        connections[index] = RawConnection(port: apiPort)
                        _ = connections[index]?.send(Array("GET /healthz HTTP/1.1\r\nHost: attacker\r\n".utf8))
                    }
                    sleep(until: min(end, SystemClock.monotonicNanoseconds() + 1_000_000_000))
                }
                let result = reconnects
                tally.withLock { $0.slowlorisReconnects = result }
            })
        // Never-readers: pipeline heavy reads and read nothing; a fresh connection when cut.
        threads.append(
            try! startThread(detached: false) {
                ThreadPriority(niceness: niceness).apply()
                sleep(until: from)
                var connections = [RawConnection?](repeating: nil, count: HostileRun.neverReaders)
                var cuts = 0
                while SystemClock.monotonicNanoseconds() < end {
                    for index in connections.indices {
                        if let connection = connections[index], !connection.isClosed { continue }
                        if connections[index] != nil { cuts += 1 }
                        connections[index] = RawConnection(port: apiPort)
                        _ = connections[index]?.send(heavy)
                    }
                    sleep(until: min(end, SystemClock.monotonicNanoseconds() + 1_000_000_000))
                }
                let result = cuts
                tally.withLock { $0.neverReaderCuts = result }
            })
        // Heavy readers: back to back, each on its own keep-alive connection.
        for _ in 0..<HostileRun.heavyReaders {
            threads.append(
                try! startThread(detached: false) {
                    ThreadPriority(niceness: niceness).apply()
                    sleep(until: from)
                    var statuses: [Int: Int] = [:]
                    let client = HTTPClient(port: apiPort, timeout: .seconds(15))
                    while SystemClock.monotonicNanoseconds() < end {
                        do {
                            let response = try client.send(.get, "/v1/events?after=0&limit=1000", headers: headers)
                            statuses[response.status.code, default: 0] += 1
                        } catch {
                            client.close()
                            statuses[0, default: 0] += 1
                            usleep(10_000)
                        }
                    }
                    let result = statuses
                    tally.withLock { $0.heavyStatuses.merge(result, uniquingKeysWith: +) }
                })
        }
        return threads
    }
}
