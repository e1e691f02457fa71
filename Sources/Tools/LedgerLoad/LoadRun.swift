import LedgerHTTP
import LedgerJSON
import LedgerSystem
import LedgerTesting
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What one client thread measured.
struct ClientTally: Sendable {
    var latencies: [UInt64] = []
    var statuses: [Int: Int] = [:]
    var errors = 0
    var firstError: String?
}

/// The load run: N keep-alive clients, back to back, warm-up then measurement.
enum LoadRun {
    static func run(_ options: LoadOptions) throws(LoadError) -> String {
        let tallies = Mutex<[ClientTally]>([])
        let acks = try options.acksPath.map { path throws(LoadError) in try AcknowledgementLog.open(path) }
        let next = Atomic<Int>(0)
        let exhaustedAt = Atomic<UInt64>(0)
        let begin = SystemClock.monotonicNanoseconds()
        let measureFrom = begin + UInt64(options.warmup * 1e9)
        let end = measureFrom + UInt64(options.seconds * 1e9)
        let headers = HTTPHeaders(options.headers)
        let method = HTTPMethod(options.method)
        let (body, bodies, vary) = (options.body, options.bodies, options.vary)
        let (host, port, path) = (options.host, options.port, options.path)
        var threads: [pthread_t] = []
        for _ in 0..<options.clients {
            threads.append(
                try! startThread(detached: false) {
                    var tally = ClientTally()
                    tally.latencies.reserveCapacity(1 << 16)
                    let client = HTTPClient(host: host, port: port, timeout: .seconds(30))
                    while true {
                        let start = SystemClock.monotonicNanoseconds()
                        if start >= end { break }
                        // Each request takes the next body (or path) in turn.
                        let turn = bodies.isEmpty && vary == 0 ? 0 : next.wrappingAdd(1, ordering: .relaxed).oldValue
                        if !bodies.isEmpty && turn >= bodies.count {
                            _ = exhaustedAt.compareExchange(expected: 0, desired: start, ordering: .relaxed)
                            break
                        }
                        let target = vary > 0 ? path.replacing("{n}", with: String(1 + turn % vary)) : path
                        let response: HTTPResponse
                        do {
                            response = try client.send(
                                method, target, headers: headers, body: bodies.isEmpty ? body : bodies[turn])
                        } catch {
                            if start >= measureFrom {
                                tally.errors += 1
                                if tally.firstError == nil { tally.firstError = "\(error)" }
                            }
                            client.close()
                            continue
                        }
                        let finish = SystemClock.monotonicNanoseconds()
                        if response.status.code == 200, !bodies.isEmpty {
                            acks?.acknowledge(line: turn, response: response.body)
                        }
                        if start >= measureFrom && finish <= end {
                            tally.latencies.append(finish - start)
                            tally.statuses[response.status.code, default: 0] += 1
                        }
                    }
                    let result = tally
                    tallies.withLock { $0.append(result) }
                })
        }
        for thread in threads { pthread_join(thread, nil) }
        var measured = options
        let exhausted = exhaustedAt.load(ordering: .relaxed)
        if exhausted > 0 {
            // The bodies ran out before the end: the rate is over the part of the window that had work.
            measured.seconds = exhausted > measureFrom ? Double(exhausted - measureFrom) / 1e9 : 0
        }
        return report(tallies.withLock { $0 }, options: measured, exhausted: exhausted > 0)
    }

    static func report(_ tallies: [ClientTally], options: LoadOptions, exhausted: Bool = false) -> String {
        var latencies = tallies.flatMap(\.latencies)
        latencies.sort()
        var statuses: [Int: Int] = [:]
        for tally in tallies { statuses.merge(tally.statuses, uniquingKeysWith: +) }
        let errors = tallies.reduce(0) { $0 + $1.errors }
        let count = latencies.count
        func percentile(_ p: Double) -> Double {
            guard count > 0 else { return 0 }
            let index = Swift.min(count - 1, Int((Double(count) * p).rounded(.up)) - 1)
            return Double(latencies[Swift.max(0, index)]) / 1e6
        }
        let rate = options.seconds > 0 ? Double(count) / options.seconds : 0
        let (p50, p90, p99, slowest) = (percentile(0.50), percentile(0.90), percentile(0.99), percentile(1.0))
        let statusText = statuses.keys.sorted().map { "\"\($0)\":\(statuses[$0]!)" }.joined(separator: ",")
        if options.json {
            return "{\"method\":\"\(options.method)\",\"path\":\(JSONValue.quoted(options.path)),"
                + "\"clients\":\(options.clients),\"seconds\":\(options.seconds),\"requests\":\(count),"
                + "\"requestsPerSecond\":\(round1(rate)),\"p50ms\":\(round3(p50)),\"p90ms\":\(round3(p90)),"
                + "\"p99ms\":\(round3(p99)),\"maxms\":\(round3(slowest)),\"statuses\":{\(statusText)},"
                + "\"errors\":\(errors),\"bodiesExhausted\":\(exhausted)}"
        }
        var text = "\(options.method) \(options.path) — \(options.clients) keep-alive clients, "
        text += "\(options.seconds) s after \(options.warmup) s warm-up"
        text += exhausted ? " (the bodies ran out: measured until then)\n" : "\n"
        text += "  requests   \(count)  (\(round1(rate))/s)\n"
        text += "  latency    p50 \(round3(p50)) ms   p90 \(round3(p90)) ms   p99 \(round3(p99)) ms"
        text += "   max \(round3(slowest)) ms\n"
        text += "  statuses   \(statuses.keys.sorted().map { "\($0): \(statuses[$0]!)" }.joined(separator: ", "))\n"
        text += "  errors     \(errors)"
        if let first = tallies.compactMap(\.firstError).first { text += "  (first: \(first))" }
        return text
    }

    private static func round1(_ value: Double) -> Double { (value * 10).rounded() / 10 }
    private static func round3(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
}
