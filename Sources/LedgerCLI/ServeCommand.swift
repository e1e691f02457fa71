import LedgerAPI
import LedgerCore
import LedgerHTTP
import LedgerService

/// `ledger serve`: the webhook and the read API until SIGTERM or SIGINT, then a graceful stop.
enum ServeCommand {
    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let directory = context.dataDirectory
        // An empty token would turn the guard off without a word (e.g. `--read-token ${READ_TOKEN}` with the
        // variable unset): refuse it, as a token must be given to be set.
        for flag in ["--read-token", "--admin-token"] where context.arguments.value(flag)?.isEmpty == true {
            let without = flag == "--read-token" ? "the read endpoints open to anyone" : "the admin endpoints off"
            throw CLIError.usage(
                "\(flag) is empty; give a token, or leave the flag out (\(without))",
                command: context.arguments.command)
        }
        let host = context.arguments.value("--host") ?? "127.0.0.1"
        let port = try context.integer("--port", in: 0...65535) ?? 8080
        let verifier = try VerifySettings.verifier(context, bound: BoundIdentity.of(context), writes: true)
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
        defer { ledger.log.close() }
        let pipeline = IngestPipeline(
            ledger: ledger, verifier: verifier, quarantine: Quarantine(dataDirectory: directory))
        let metrics = LedgerMetrics(ledger: ledger, verifier: verifier)
        let api = LedgerAPI(
            pipeline: pipeline, readToken: context.arguments.value("--read-token"),
            adminToken: context.arguments.value("--admin-token"), metrics: metrics)
        var configuration = HTTPServer.Configuration(
            host: host, port: UInt16(port), accessLog: AccessLog(fileDescriptor: 2), metrics: metrics.http)
        configuration.onDrain = { api.endLongPolls() }
        do {
            let server = try HTTPServer(configuration: configuration, responder: api.application())
            try server.run(listener: listener) { line in
                Terminal.line(line)
            }
        } catch {
            throw CLIError.failure("cannot serve on \(host):\(port): \(error.message)")
        }
        Terminal.err("stopped: head seq \(ledger.log.head.seq)\n")
        return 0
    }
}
