import LedgerHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// `ledger-load`: measures the HTTP server's requests/s and latency with keep-alive clients, or serves a
/// demo server with the ledger's route shapes to measure the server core alone. See `Scripts/load`.
@main
struct LedgerLoad {
    static func main() {
        let options: LoadOptions
        do {
            options = try LoadOptions.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            HTTPServer.writeStandardOutput("error: \(error)\n\n\(LoadOptions.usage)\n")
            exit(64)
        }
        switch options.command {
        case .help:
            HTTPServer.writeStandardOutput(LoadOptions.usage + "\n")
        case .run:
            do {
                HTTPServer.writeStandardOutput(try LoadRun.run(options) + "\n")
            } catch {
                HTTPServer.writeStandardOutput("error: \(error)\n")
                exit(70)
            }
        case .hostile:
            do {
                HTTPServer.writeStandardOutput(try HostileRun.run(options) + "\n")
            } catch {
                HTTPServer.writeStandardOutput("error: \(error)\n")
                exit(70)
            }
        case .serve:
            do {
                try DemoServer.make(options).run()
            } catch {
                HTTPServer.writeStandardOutput("error: \(error)\n")
                exit(70)
            }
        }
    }
}

/// A server shaped like `ledger serve`, with handlers that do no ledger work (or block like a commit).
enum DemoServer {
    static func make(_ options: LoadOptions) throws -> HTTPServer {
        let metrics = ServerMetrics()
        let commit = options.commitMicroseconds
        var router = Router()
        router.get("/healthz") { _ in .json(.ok, #"{"status":"ok","head":0}"#) }
        router.get("/metrics", metrics.handler)
        router.post("/webhooks/apple") { request in
            guard !request.body.isEmpty else { throw HTTPError.badRequest("empty body") }
            if commit > 0 { usleep(UInt32(commit)) }
            return .json(.ok, #"{"status":"accepted"}"#)
        }
        router.get("/v1/users/{id}/entitlement", middlewares: [BearerAuth(token: nil)]) { request in
            let id = request.parameter("id") ?? "0"
            return .json(
                .ok,
                #"{"userId":\#(id),"entitled":true,"deviceLimit":3,"status":"active","subscriptions":[]}"#)
        }
        return try HTTPServer(
            configuration: .init(host: options.host, port: options.port, metrics: metrics),
            responder: HTTPApplication(router: router))
    }
}
