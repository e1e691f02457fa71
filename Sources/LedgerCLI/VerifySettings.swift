import LedgerAppStore
import LedgerCore
import LedgerCrypto
import LedgerService

/// The verification flags (`--environment`, `--bundle-id`, `--app-apple-id`, `--trust-root`) turned into a
/// verifier, as Apple's libraries configure theirs.
enum VerifySettings {
    /// Builds the verifier. `boundEnvironment` (the data directory's) is used when `--environment` is absent.
    static func verifier(_ context: CommandContext, boundEnvironment: LedgerEnvironment? = nil) throws(CLIError)
        -> SignedDataVerifier
    {
        let command = context.arguments.command
        let environment: LedgerEnvironment
        if let text = context.arguments.value("--environment") {
            guard let parsed = LedgerEnvironment(argument: text) else {
                throw CLIError.usage(
                    "--environment '\(text)' is not sandbox, production, xcode or local-testing", command: command)
            }
            guard command == "inspect" || parsed == .sandbox || parsed == .production else {
                throw CLIError.usage(
                    "--environment \(text) is only for inspect; use sandbox or production", command: command)
            }
            environment = parsed
        } else if let boundEnvironment {
            environment = boundEnvironment
        } else {
            throw CLIError.usage("--environment sandbox|production is required", command: command)
        }
        let appAppleId = try context.integer("--app-apple-id", in: 0...Int64.max)
        if environment == .production, appAppleId == nil {
            throw CLIError.usage(
                "--app-apple-id N is required with production, as in Apple's libraries", command: command)
        }
        let paths = TrustRoots.paths(flags: context.arguments.all("--trust-root"), environment: context.environment)
        let skips = environment == .xcode || environment == .localTesting
        if paths.isEmpty, !skips {
            throw CLIError.usage(
                "no trust root: pass --trust-root FILE (Apple Root CA - G3 from Apple's PKI page, SHA-256 "
                    + "\(TrustRoots.appleRootCAG3Fingerprint)) or set $LEDGER_TRUST_ROOTS; the ledger refuses to verify without one",
                command: command)
        }
        let roots: [X509Certificate]
        do {
            roots = try TrustRoots.load(paths: paths)
        } catch {
            throw CLIError.usage(error.message, command: command)
        }
        do {
            let configuration = try VerifierConfiguration(
                rootCertificates: roots.map(\.derRepresentation), bundleId: context.arguments.value("--bundle-id"),
                appAppleId: appAppleId, environment: environment)
            return try SignedDataVerifier(configuration: configuration)
        } catch {
            throw CLIError.usage("cannot verify with this configuration: \(error.message)", command: command)
        }
    }

    /// The start-up line naming the environment and the trust roots (on stderr), and a warning when no bundle id
    /// is configured.
    static func announce(_ verifier: SignedDataVerifier) {
        let configuration = verifier.configuration
        var line = "verifying \(configuration.environment.rawValue) notifications"
        if let bundle = configuration.bundleId { line += " for \(bundle)" }
        Terminal.err(line + "\n")
        if configuration.bundleId == nil {
            // Apple signs every app's data with the same chain: only the bundle id tells ours apart.
            Terminal.err(
                "warning: no --bundle-id: App Store data of any app is accepted (Apple's libraries always check"
                    + " the bundle id)\n")
        }
        for der in configuration.rootCertificates {
            if let root = try? X509Certificate(derRepresentation: der) {
                Terminal.err("  " + TrustRoots.describe(root) + "\n")
            }
        }
    }
}
