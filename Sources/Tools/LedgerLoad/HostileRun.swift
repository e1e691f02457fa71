import LedgerHTTP
import LedgerSystem
import LedgerTesting
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `ledger-load hostile`: the attacks of issue 31 on the API listener while keep-alive clients deliver distinct
/// notifications to the webhook listener; reports what the webhook saw.
///
/// The attacks are bounded in count and time, and loopback only: 300 slow readers (pipelining `GET /openapi.yaml`,
/// reading 32 KiB every 4 s), 100 slowloris connections that dribble a head and reconnect when cut, 250 concurrent
/// heavy readers (`GET /v1/events?after=0&limit=1000`), and 300 clients that pipeline heavy reads and never read.
enum HostileRun {
    static let slowReaders = 300
    static let slowloris = 100
    static let heavyReaders = 250
    static let neverReaders = 300

    /// What the attackers and the webhook's clients counted.
    struct Tally: Sendable {
        var webhook = ClientTally()
        var health = ClientTally()
        var heavyStatuses: [Int: Int] = [:]
        var slowReaderCuts = 0
        var slowlorisReconnects = 0
        var neverReaderCuts = 0
        var rssMaxKiB = 0
    }

    static func run(_ options: LoadOptions) throws(LoadError) -> String {
        guard ["127.0.0.1", "localhost", "::1"].contains(options.host), options.apiPort != 0 else {
            throw LoadError("hostile runs only against loopback: --url http://127.0.0.1:P --api-url http://127.0.0.1:Q")
        }
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        let acks = try options.acksPath.map { path throws(LoadError) in try AcknowledgementLog.open(path) }
        let tally = Shared(Tally())
        let begin = SystemClock.monotonicNanoseconds()
        let attackFrom = begin + UInt64(options.warmup * 1e9)
        let end = attackFrom + UInt64(min(options.seconds, 120) * 1e9)
        let next = Atomic<Int>(0)
        let (bodies, body, headers) = (options.bodies, options.body, HTTPHeaders(options.headers))
        let (webhookPort, apiPort, pid) = (options.port, options.apiPort, options.serverPid)
        var threads: [pthread_t] = []
        // The webhook's clients: each body once, in turn; measured once the attacks run.
        for _ in 0..<options.clients {
            threads.append(
                try! startThread(detached: false) {
                    var mine = ClientTally()
                    let client = HTTPClient(port: webhookPort, timeout: .seconds(30))
                    while SystemClock.monotonicNanoseconds() < end {
                        let turn = next.wrappingAdd(1, ordering: .relaxed).oldValue
                        if !bodies.isEmpty && turn >= bodies.count { break }
                        let start = SystemClock.monotonicNanoseconds()
                        do {
                            let response = try client.send(
                                .post, "/webhooks/apple", headers: ["Content-Type": "application/json"],
                                body: bodies.isEmpty ? body : bodies[turn])
                            if response.status.code == 200, !bodies.isEmpty {
                                acks?.acknowledge(line: turn, response: response.body)
                            }
                            guard start >= attackFrom else { continue }
                            mine.latencies.append(SystemClock.monotonicNanoseconds() - start)
                            mine.statuses[response.status.code, default: 0] += 1
                        } catch {
                            client.close()
                            if start >= attackFrom {
                                mine.errors += 1
                                if mine.firstError == nil { mine.firstError = "\(error)" }
                            }
                        }
                    }
                    let result = mine
                    tally.withLock { $0.webhook.merge(result) }
                })
        }
        // /healthz on the webhook listener, every 20 ms during the attacks.
        threads.append(
            try! startThread(detached: false) {
                var mine = ClientTally()
                let client = HTTPClient(port: webhookPort, timeout: .seconds(30))
                sleep(until: attackFrom)
                while SystemClock.monotonicNanoseconds() < end {
                    let start = SystemClock.monotonicNanoseconds()
                    do {
                        let response = try client.send(.get, "/healthz")
                        mine.latencies.append(SystemClock.monotonicNanoseconds() - start)
                        mine.statuses[response.status.code, default: 0] += 1
                    } catch {
                        client.close()
                        mine.errors += 1
                    }
                    usleep(20_000)
                }
                let result = mine
                tally.withLock { $0.health.merge(result) }
            })
        // The server's resident set, every 100 ms.
        threads.append(
            try! startThread(detached: false) {
                var highest = 0
                while SystemClock.monotonicNanoseconds() < end + 1_000_000_000 {
                    if pid > 0, let kib = residentKiB(of: pid) { highest = max(highest, kib) }
                    usleep(100_000)
                }
                let result = highest
                tally.withLock { $0.rssMaxKiB = result }
            })
        threads += HostileAttacks.start(
            apiPort: apiPort, headers: headers, niceness: options.attackerNiceness, from: attackFrom, until: end,
            tally: tally)
        for thread in threads { pthread_join(thread, nil) }
        return report(tally.withLock { $0 }, options: options)
    }

    static func report(_ tally: Tally, options: LoadOptions) -> String {
        let webhook = tally.webhook.latencies.sorted()
        let health = tally.health.latencies.sorted()
        let (p50, p99, slowest) = (percentile(webhook, 0.5), percentile(webhook, 0.99), percentile(webhook, 1))
        let healthP99 = percentile(health, 0.99)
        let unavailable = tally.webhook.statuses[503] ?? 0
        let rss = Double(tally.rssMaxKiB) / 1024
        let statuses = tally.webhook.statuses.keys.sorted().map { "\"\($0)\":\(tally.webhook.statuses[$0]!)" }
        let heavy = tally.heavyStatuses.keys.sorted().map { "\"\($0)\":\(tally.heavyStatuses[$0]!)" }
        if options.json {
            return "{\"seconds\":\(options.seconds),\"webhookRequests\":\(webhook.count),\"webhookP50ms\":\(p50),"
                + "\"webhookP99ms\":\(p99),\"webhookMaxms\":\(slowest),\"webhook503\":\(unavailable),"
                + "\"webhookErrors\":\(tally.webhook.errors),\"webhookStatuses\":{\(statuses.joined(separator: ","))},"
                + "\"healthzP99ms\":\(healthP99),\"healthzErrors\":\(tally.health.errors),"
                + "\"healthzStatuses\":{\(tally.health.statuses.keys.sorted().map { "\"\($0)\":\(tally.health.statuses[$0]!)" }.joined(separator: ","))},"
                + "\"rssMaxMiB\":\(rss),\"heavyStatuses\":{\(heavy.joined(separator: ","))},"
                + "\"slowReaderCuts\":\(tally.slowReaderCuts),\"slowlorisReconnects\":\(tally.slowlorisReconnects),"
                + "\"neverReaderCuts\":\(tally.neverReaderCuts)}"
        }
        var text = "hostile: \(options.seconds) s of attacks on the API listener after \(options.warmup) s warm-up\n"
        text += "  attackers  \(slowReaders) slow readers (\(tally.slowReaderCuts) cut), \(slowloris) slowloris "
        text += "(\(tally.slowlorisReconnects) reconnects), \(heavyReaders) heavy readers "
        text += "(statuses \(heavy.joined(separator: ", "))), \(neverReaders) never-readers "
        text += "(\(tally.neverReaderCuts) cut)\n"
        text += "  webhook    \(webhook.count) notifications, p50 \(p50) ms, p99 \(p99) ms, max \(slowest) ms, "
        text += "503s \(unavailable), errors \(tally.webhook.errors)"
        if let first = tally.webhook.firstError { text += " (first: \(first))" }
        text += "\n  /healthz   p99 \(healthP99) ms on the webhook listener, errors \(tally.health.errors)\n"
        text += "  server RSS max \((rss * 10).rounded() / 10) MiB"
        return text
    }

    /// The `p` quantile of sorted nanoseconds, in milliseconds (3 decimals).
    static func percentile(_ sorted: [UInt64], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let index = min(sorted.count - 1, max(0, Int((Double(sorted.count) * p).rounded(.up)) - 1))
        return (Double(sorted[index]) / 1e3).rounded() / 1e3
    }
}

/// A value many threads add to.
final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { value.withLock { body(&$0) } }
}

extension ClientTally {
    mutating func merge(_ other: ClientTally) {
        latencies += other.latencies
        statuses.merge(other.statuses, uniquingKeysWith: +)
        errors += other.errors
        if firstError == nil { firstError = other.firstError }
    }
}

/// Sleeps until the monotonic clock reaches `deadline` (nanoseconds).
func sleep(until deadline: UInt64) {
    while true {
        let now = SystemClock.monotonicNanoseconds()
        guard now < deadline else { return }
        usleep(UInt32(min(100_000, (deadline - now) / 1000)))
    }
}
