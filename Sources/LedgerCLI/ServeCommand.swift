import LedgerAPI
import LedgerAppStoreAPI
import LedgerCore
import LedgerHTTP
import LedgerService
import LedgerSystem

/// `ledger serve`: the webhook and the read API until SIGTERM or SIGINT, then a graceful stop.
/// Its options and help are in `ServeCommand+Spec.swift`.
enum ServeCommand: LedgerCommand {
    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        HeapTuning.boundHeapForServers()
        let directory = context.dataDirectory
        // From a file, the environment or (with a warning) the command line; never printed, nor written to LOCK.
        let tokens = try ServeTokens.resolve(context.arguments, environment: context.environment)
        for warning in tokens.warnings { Terminal.err("warning: \(warning)\n") }
        let listen = try ServeListeners.resolve(context)
        let verifier = try VerifySettings.verifier(context, bound: BoundIdentity.of(context), writes: true)
        // `--reconcile-every`, `--consumption auto`: the key is read and checked now, so a bad one is a usage error
        // before serving.
        let stopping = StopFlag()
        let consent = try consumptionConsent(context)
        let reconcileText = try context.value(reconcileEvery)
        let reconcileInterval = try reconcileText.map { (text) throws(CLIError) -> Int64 in
            guard let interval = ScheduledPull.interval(text) else {
                throw CLIError.usage(
                    "--reconcile-every '\(text)' is not a duration of a second or more (30s, 15m, 1h)",
                    command: "serve")
            }
            return interval
        }
        var client: AppStoreServerAPIClient?
        if reconcileInterval != nil || consent != nil {
            client = try APIClientSettings.client(context, configuration: verifier.configuration) {
                [stopping] milliseconds in
                stopping.pause(milliseconds: Int64(milliseconds))
            }
        }
        var schedule: (pull: APIPull, interval: Int64, since: Int64?, degradedAfter: Int64)?
        if let interval = reconcileInterval, let client {
            let since = try context.instant(reconcileSince)?.milliseconds
            var degradedAfter = max(3 * interval, 3_600_000)
            if let text = try context.value(reconcileDegradedAfter) {
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
        // Every address is bound before the data directory is opened: a busy port or a bad host leaves nothing
        // behind (no new data directory, no LOCK, no other address).
        let listeners = try listen.bind()
        VerifySettings.announce(verifier)
        let ledger = try Commands.openWriter(
            context, environment: verifier.configuration.environment, app: VerifySettings.app(verifier),
            serving: true)
        defer { ledger.close() }
        let pipeline = IngestPipeline(
            ledger: ledger, verifier: verifier, quarantine: Quarantine(dataDirectory: directory))
        let metrics = LedgerMetrics(ledger: ledger, verifier: verifier)
        let api = LedgerAPI(
            pipeline: pipeline, readToken: tokens.read, adminToken: tokens.admin, metrics: metrics)
        let accessLog = AccessLog(fileDescriptor: 2)
        let scheduled = schedule.map {
            metrics.enableReconcile(
                degradedAfterMilliseconds: $0.degradedAfter, startedAt: SystemClock.wallMilliseconds())
            return ScheduledPull(
                pull: $0.pull, ledger: ledger, dataDirectory: directory, intervalMilliseconds: $0.interval,
                firstSince: $0.since, metrics: metrics, stopping: stopping)
        }
        try scheduled?.start()
        defer { scheduled?.stop() }
        var answers: ConsumptionAnswers?
        if let client, let consent {
            answers = ConsumptionAnswers(
                client: client, ledger: ledger, dataDirectory: directory, consent: consent, metrics: metrics,
                stopping: stopping
            ) { Terminal.err($0 + "\n") }
        }
        try answers?.start()
        defer { answers?.stop() }
        do {
            // One server per address, each with its own connection slots and threads; the API's threads run at a
            // lower priority, so its reads never take the cores from Apple's deliveries, whose threads ask for short
            // slices, so they get a core soon after they wake.
            var servers: [(server: HTTPServer, listener: HTTPListener?)] = []
            for (address, listener) in zip(listen.addresses, listeners) {
                var configuration = HTTPServer.Configuration(
                    host: address.host, port: address.port, accessLog: accessLog, metrics: metrics.http,
                    name: address.name, priority: Self.priority(of: address.surface))
                configuration.lane = Self.lane(of: address.surface)
                configuration.onDrain = { api.endLongPolls() }
                servers.append(
                    (
                        try HTTPServer(
                            configuration: configuration, responder: api.application(serving: address.surface)),
                        listener
                    ))
            }
            try HTTPServer.run(servers) { line in Terminal.line(line) }
        } catch {
            let addresses = listen.addresses.map(\.text).joined(separator: " and ")
            throw CLIError.failure("cannot serve on \(addresses): \(error.message)")
        }
        scheduled?.stop()
        answers?.stop()
        Terminal.err("stopped: head seq \(ledger.head.seq)\n")
        return 0
    }

    /// How a listener's threads compete for the cores: the read API's at niceness 19; the webhook's with 100 µs
    /// slices (the kernel's shortest), which under an attack on the API took the webhook's p99 from 18.2 to 15.0 ms
    /// (medians of 6 alternated `Scripts/load --hostile` runs on 2 cores); one address for both, as the process is.
    static func priority(of surface: LedgerAPI.Surface) -> ThreadPriority {
        switch surface {
        case .api: ThreadPriority(niceness: 19)
        case .webhook: ThreadPriority(sliceMicroseconds: 100)
        case .all: ThreadPriority()
        }
    }

    /// On one address for both: the heavy reads (feed pages, histories) on workers of their own at the API
    /// listener's niceness, so that their CPU yields to Apple's deliveries there too. As many workers as a server
    /// has: the feed's long polls (64 at most) and the heavy reads admitted or queued (4 and 32) hold one each.
    static func lane(of surface: LedgerAPI.Surface) -> HTTPServer.Lane? {
        guard surface == .all else { return nil }
        return HTTPServer.Lane(workers: 128, priority: priority(of: .api)) { method, path in
            method == .get && (path == "/v1/events" || path.hasSuffix("/history"))
        }
    }

    /// `--consumption auto --consumption-consent yes|no`: the consent when consumption answers are on, nil when off.
    static func consumptionConsent(_ context: CommandContext) throws(CLIError) -> Bool? {
        let mode = try context.value(consumption) ?? "off"
        let consent = try context.value(consumptionConsent)
        switch mode {
        case "off":
            guard consent == nil else {
                throw CLIError.usage("--consumption-consent is only for --consumption auto", command: "serve")
            }
            return nil
        case "auto":
            switch consent {
            case "yes": return true
            case "no": return false
            case nil:
                throw CLIError.usage(
                    "--consumption auto needs --consumption-consent yes|no: whether the app's customers consented "
                        + "to share consumption data with Apple (Apple takes none without consent)", command: "serve")
            case let other?:
                throw CLIError.usage("--consumption-consent '\(other)' is not yes or no", command: "serve")
            }
        default:
            throw CLIError.usage("--consumption '\(mode)' is not auto or off", command: "serve")
        }
    }
}
