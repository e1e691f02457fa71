import LedgerAPI
import LedgerCore
import LedgerHTTP
import LedgerService
import LedgerSystem

/// `ledger serve`: the webhook and the read API until SIGTERM or SIGINT, then a graceful stop.
enum ServeCommand {
    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let directory = context.dataDirectory
        // From a file, the environment or (with a warning) the command line; never printed, nor written to LOCK.
        let tokens = try ServeTokens.resolve(context.arguments, environment: context.environment)
        for warning in tokens.warnings { Terminal.err("warning: \(warning)\n") }
        let host = context.arguments.value("--host") ?? "127.0.0.1"
        let port = try context.integer("--port", in: 0...65535) ?? 8080
        let verifier = try VerifySettings.verifier(context, bound: BoundIdentity.of(context), writes: true)
        // `--reconcile-every`: the key is read and checked now, so a bad one is a usage error before serving.
        let stopping = StopFlag()
        var schedule: (pull: APIPull, interval: Int64, since: Int64?, degradedAfter: Int64)?
        if let text = context.arguments.value("--reconcile-every") {
            guard let interval = ScheduledPull.interval(text) else {
                throw CLIError.usage(
                    "--reconcile-every '\(text)' is not a duration of a second or more (30s, 15m, 1h)",
                    command: "serve")
            }
            let client = try APIClientSettings.client(context, verifier: verifier) { [stopping] milliseconds in
                stopping.pause(milliseconds: Int64(milliseconds))
            }
            let since = try context.instant("--reconcile-since")?.milliseconds
            var degradedAfter = max(3 * interval, 3_600_000)
            if let text = context.arguments.value("--reconcile-degraded-after") {
                guard let parsed = ScheduledPull.interval(text) else {
                    throw CLIError.usage(
                        "--reconcile-degraded-after '\(text)' is not a duration of a second or more", command: "serve")
                }
                degradedAfter = parsed
            }
            schedule = (
                APIPull(client: client, verifier: verifier) { Terminal.err($0 + "\n") }, interval, since, degradedAfter
            )
        }
        // The address is bound before the data directory is opened: a busy port or a bad host leaves nothing
        // behind (no new data directory, no LOCK).
        let listener: HTTPListener
        do {
            listener = try HTTPListener(host: host, port: UInt16(port))
        } catch {
            throw CLIError.failure("cannot serve on \(host):\(port): \(error.message)")
        }
        VerifySettings.announce(verifier)
        let ledger = try Commands.openWriter(
            context, environment: verifier.configuration.environment, app: VerifySettings.app(verifier))
        defer { ledger.close() }
        let pipeline = IngestPipeline(
            ledger: ledger, verifier: verifier, quarantine: Quarantine(dataDirectory: directory))
        let metrics = LedgerMetrics(ledger: ledger, verifier: verifier)
        let api = LedgerAPI(
            pipeline: pipeline, readToken: tokens.read, adminToken: tokens.admin, metrics: metrics)
        var configuration = HTTPServer.Configuration(
            host: host, port: UInt16(port), accessLog: AccessLog(fileDescriptor: 2), metrics: metrics.http)
        configuration.onDrain = { api.endLongPolls() }
        let scheduled = schedule.map {
            metrics.enableReconcile(
                degradedAfterMilliseconds: $0.degradedAfter, startedAt: SystemClock.wallMilliseconds())
            return ScheduledPull(
                pull: $0.pull, ledger: ledger, dataDirectory: directory, intervalMilliseconds: $0.interval,
                firstSince: $0.since, metrics: metrics, stopping: stopping)
        }
        try scheduled?.start()
        defer { scheduled?.stop() }
        do {
            let server = try HTTPServer(configuration: configuration, responder: api.application())
            try server.run(listener: listener) { line in
                Terminal.line(line)
            }
        } catch {
            throw CLIError.failure("cannot serve on \(host):\(port): \(error.message)")
        }
        scheduled?.stop()
        Terminal.err("stopped: head seq \(ledger.head.seq)\n")
        return 0
    }
}
