import LedgerHTTP
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
    static func run(_ options: LoadOptions) -> String {
        let tallies = Mutex<[ClientTally]>([])
        let begin = monotonicNanoseconds()
        let measureFrom = begin + UInt64(options.warmup * 1e9)
        let end = measureFrom + UInt64(options.seconds * 1e9)
        let headers = HTTPHeaders(options.headers)
        let method = HTTPMethod(options.method)
        let body = options.body
        let (host, port, path) = (options.host, options.port, options.path)
        var threads: [pthread_t] = []
        for _ in 0..<options.clients {
            threads.append(
                startThread {
                    var tally = ClientTally()
                    tally.latencies.reserveCapacity(1 << 16)
                    let client = HTTPClient(host: host, port: port, timeout: .seconds(30))
                    while true {
                        let start = monotonicNanoseconds()
                        if start >= end { break }
                        let response: HTTPResponse
                        do {
                            response = try client.send(method, path, headers: headers, body: body)
                        } catch {
                            if start >= measureFrom {
                                tally.errors += 1
                                if tally.firstError == nil { tally.firstError = "\(error)" }
                            }
                            client.close()
                            continue
                        }
                        let finish = monotonicNanoseconds()
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
        return report(tallies.withLock { $0 }, options: options)
    }

    static func report(_ tallies: [ClientTally], options: LoadOptions) -> String {
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
        let rate = Double(count) / options.seconds
        let (p50, p90, p99, slowest) = (percentile(0.50), percentile(0.90), percentile(0.99), percentile(1.0))
        let statusText = statuses.keys.sorted().map { "\"\($0)\":\(statuses[$0]!)" }.joined(separator: ",")
        if options.json {
            return "{\"method\":\"\(options.method)\",\"path\":\(JSONText.quoted(options.path)),"
                + "\"clients\":\(options.clients),\"seconds\":\(options.seconds),\"requests\":\(count),"
                + "\"requestsPerSecond\":\(round1(rate)),\"p50ms\":\(round3(p50)),\"p90ms\":\(round3(p90)),"
                + "\"p99ms\":\(round3(p99)),\"maxms\":\(round3(slowest)),\"statuses\":{\(statusText)},\"errors\":\(errors)}"
        }
        var text = "\(options.method) \(options.path) — \(options.clients) keep-alive clients, "
        text += "\(options.seconds) s after \(options.warmup) s warm-up\n"
        text += "  requests   \(count)  (\(round1(rate))/s)\n"
        text +=
            "  latency    p50 \(round3(p50)) ms   p90 \(round3(p90)) ms   p99 \(round3(p99)) ms   max \(round3(slowest)) ms\n"
        text += "  statuses   \(statuses.keys.sorted().map { "\($0): \(statuses[$0]!)" }.joined(separator: ", "))\n"
        text += "  errors     \(errors)"
        if let first = tallies.compactMap(\.firstError).first { text += "  (first: \(first))" }
        return text
    }

    private static func round1(_ value: Double) -> Double { (value * 10).rounded() / 10 }
    private static func round3(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
}
