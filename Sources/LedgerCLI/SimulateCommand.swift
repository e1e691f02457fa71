import LedgerCore
import LedgerSimulator

/// `ledger simulate`: a realistic, signed population with its truth, deterministic for a seed.
enum SimulateCommand: LedgerCommand {
    /// `--users N`.
    static let users = OptionSpec("--users", value: "N", "Number of users.")
    /// `--months M`.
    static let months = OptionSpec("--months", value: "M", "Months simulated.")
    /// `--seed S`.
    static let seed = OptionSpec("--seed", value: "S", "Random seed (same seed, same bytes).")
    /// `--out DIR`.
    static let out = OptionSpec("--out", value: "DIR", "Output directory.")
    /// `--environment ENV`.
    static let environment = OptionSpec("--environment", value: "ENV", "sandbox or production (default production).")
    /// `--sandbox-rate R`.
    static let sandboxRate = OptionSpec(
        "--sandbox-rate", value: "R", "Sandbox renewal rate (e.g. 5m: monthly renews every 5 minutes).")
    /// `--start T`.
    static let start = OptionSpec("--start", value: "T", "Start of the simulated period.")

    static let spec = CommandSpec(
        name: "simulate", summary: "Write a realistic signed population with its truth.",
        usage: [
            "simulate --users N --months M --seed S --out DIR [--environment sandbox|production] [--sandbox-rate R]"
        ],
        options: [users, months, seed, out, environment, sandboxRate, start, SharedOptions.catalog])

    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let config = try configuration(context)
        let out = try context.required(Self.out)
        let clock = ContinuousClock()
        let started = clock.now
        let report: SimulationReport
        do {
            let simulation = try Simulator(config: config).run()
            let signer = try SimulationSigner(seed: config.seed)
            report = try SimulationFiles.write(simulation, signer: signer, to: out)
        } catch {
            if error.code == .invalidConfiguration { throw CLIError.usage(error.message, command: "simulate") }
            throw CLIError(error.code == .io ? .failure : .internalError, error.message, cause: error.description)
        }
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let environment = config.isSandbox ? "sandbox (\(config.sandboxRate) per month)" : "production"
        Terminal.line(
            "simulated \(report.users) users over \(config.months) months in \(environment): "
                + "\(report.notifications) notifications, \(report.deliveries) deliveries "
                + "(\(report.duplicates) duplicates, \(report.outOfOrder) out of order), "
                + "\(report.samples) truth samples in \(format(seconds)) s")
        Terminal.line(
            "wrote \(out)/\(SimulationFiles.notifications), \(SimulationFiles.trustRoot), \(SimulationFiles.truth)")
        Terminal.line(
            "next: ledger ingest --environment \(config.environment.argument) --bundle-id \(config.bundleId)"
                + (config.isSandbox ? "" : " --app-apple-id \(config.appAppleId)")
                + " --trust-root \(out)/\(SimulationFiles.trustRoot) \(out)/\(SimulationFiles.notifications)")
        return 0
    }

    /// The simulation the command line asks for.
    static func configuration(_ context: CommandContext) throws(CLIError) -> SimulationConfig {
        let users = try context.integer(Self.users, in: 0...1_000_000)
        let months = try context.integer(Self.months, in: 1...240)
        guard let users, let months else {
            throw CLIError.usage("give --users N and --months M", command: "simulate")
        }
        let seedText = try context.required(Self.seed)
        guard let seed = UInt64(seedText) else {
            throw CLIError.usage("--seed '\(seedText)' is not an integer from 0 to \(UInt64.max)", command: "simulate")
        }
        var config = SimulationConfig(users: Int(users), months: Int(months), seed: seed, catalog: context.catalog)
        if let text = try context.value(Self.environment) {
            guard let environment = LedgerEnvironment(argument: text),
                environment == .sandbox || environment == .production
            else {
                throw CLIError.usage("--environment '\(text)' must be sandbox or production", command: "simulate")
            }
            config.environment = environment
        }
        if let text = try context.value(Self.sandboxRate) {
            guard let rate = SandboxRate(argument: text) else {
                let names = SandboxRate.all.map(\.shortName).joined(separator: ", ")
                throw CLIError.usage("--sandbox-rate '\(text)' is not a sandbox rate (\(names))", command: "simulate")
            }
            guard config.isSandbox else {
                throw CLIError.usage("--sandbox-rate needs --environment sandbox", command: "simulate")
            }
            config.sandboxRate = rate
        }
        if let start = try context.instant(Self.start) { config.start = start }
        return config
    }

    private static func format(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
