import LedgerAppStore
import LedgerCore
import LedgerCrypto
import LedgerService
import LedgerStore
import LedgerSystem

/// What a data directory is bound to: the defaults of a command's verification flags, which may not name
/// another environment or app.
struct BoundIdentity {
    /// The environment of the directory's records, once anything was written.
    var environment: LedgerEnvironment?
    /// The app its `meta` records (nil before the first write, and in a directory bound before identities were).
    var app: AppIdentity?
    /// Where the ledger lives, for messages.
    var place: String

    /// What the command's ledger is bound to; nil for a data directory that does not exist yet (a new one). One
    /// that exists but cannot be read (a damaged `meta` or segment header) is a failure naming the damage, not an
    /// unbound directory whose flags are missing.
    static func of(_ context: CommandContext) throws(CLIError) -> BoundIdentity? {
        let ledger: Ledger
        do {
            ledger = try Commands.openReader(context)
        } catch {
            let isNew =
                try Commands.postgresURL(context) == nil
                && (try? PosixFileSystem().stat(context.dataDirectory)) == .some(nil)
            if isNew { return nil }
            throw error
        }
        defer { ledger.close() }
        return BoundIdentity(environment: ledger.environment, app: ledger.appIdentity, place: ledger.place)
    }
}

/// The verification flags (`--environment`, `--bundle-id`, `--app-apple-id`, `--trust-root`) turned into a
/// verifier, as Apple's libraries configure theirs.
enum VerifySettings {
    /// Builds the verifier. Each flag left out takes the value the data directory is bound to (`bound`); a flag
    /// naming another value is a failure naming both (exit 1). A command that writes (`writes`) must know the app:
    /// a bundle id (and in production an App Apple ID) from its flags or its directory, else a usage error.
    static func verifier(_ context: CommandContext, bound: BoundIdentity? = nil, writes: Bool = false)
        throws(CLIError) -> SignedDataVerifier
    {
        let configuration = try configuration(context, bound: bound, writes: writes)
        do {
            return try SignedDataVerifier(configuration: configuration)
        } catch {
            throw CLIError.usage(
                "cannot verify with this configuration: \(error.message)", command: context.arguments.command)
        }
    }

    /// The configuration ``verifier(_:bound:writes:)`` builds its verifier from. With `trustRoots` false no trust
    /// root is asked for or loaded: for a command that verifies nothing (`appstore extend`, `consumption`) and
    /// needs only the environment and the app.
    static func configuration(
        _ context: CommandContext, bound: BoundIdentity?, writes: Bool = false, trustRoots: Bool = true
    ) throws(CLIError) -> VerifierConfiguration {
        let command = context.arguments.command
        let environment: LedgerEnvironment
        if let text = try context.value(SharedOptions.environment) {
            // Each command's error lists the values that command takes: only inspect reads Xcode's and local tests'.
            let accepted =
                command == InspectCommand.spec.name
                ? "sandbox, production, xcode or local-testing" : "sandbox or production"
            guard let parsed = LedgerEnvironment(argument: text) else {
                throw CLIError.usage("--environment '\(text)' is not \(accepted)", command: command)
            }
            guard command == InspectCommand.spec.name || parsed == .sandbox || parsed == .production else {
                throw CLIError.usage("--environment '\(text)' is not \(accepted)", command: command)
            }
            if let bound, let named = bound.environment, named != parsed {
                throw mismatch(SharedOptions.environment.name, parsed.rawValue, named.rawValue, "environment", bound)
            }
            environment = parsed
        } else if let boundEnvironment = bound?.environment {
            environment = boundEnvironment
        } else {
            throw CLIError.usage("--environment sandbox|production is required", command: command)
        }
        let appAppleIdFlag = try context.integer(SharedOptions.appAppleId, in: 0...Int64.max)
        if let bound, let flag = appAppleIdFlag, let named = bound.app?.appAppleId, flag != named {
            throw mismatch(SharedOptions.appAppleId.name, "\(flag)", "\(named)", "App Apple ID", bound)
        }
        let appAppleId = appAppleIdFlag ?? bound?.app?.appAppleId
        let bundleFlag = try context.value(SharedOptions.bundleId)
        if let bound, let flag = bundleFlag, let named = bound.app?.bundleId, flag != named {
            throw mismatch(SharedOptions.bundleId.name, flag, named, "bundle id", bound)
        }
        let bundleId = bundleFlag ?? bound?.app?.bundleId
        if environment == .production, appAppleId == nil {
            throw CLIError.usage(
                "--app-apple-id N is required with production, as in Apple's libraries", command: command)
        }
        let paths =
            trustRoots
            ? TrustRoots.paths(flags: try context.all(SharedOptions.trustRoot), environment: context.environment) : []
        let skips = environment == .xcode || environment == .localTesting
        if trustRoots, paths.isEmpty, !skips {
            throw CLIError.usage(
                "no trust root: pass --trust-root FILE (Apple Root CA - G3 from Apple's PKI page, SHA-256 "
                    + "\(TrustRoots.appleRootCAG3Fingerprint)) or set $LEDGER_TRUST_ROOTS; the ledger refuses to verify without one",
                command: command)
        }
        if writes, bundleId == nil {
            // Apple signs every app's data with the same chain: only the bundle id tells ours apart.
            throw CLIError.usage(
                "--bundle-id ID is required: \(bound?.place ?? context.dataDirectory) records no app yet, and no "
                    + "writer accepts App Store data of any app (the first write records it)", command: command)
        }
        let roots: [X509Certificate]
        do {
            roots = try TrustRoots.load(paths: paths)
        } catch {
            throw CLIError.usage(error.message, command: command)
        }
        do {
            return try VerifierConfiguration(
                rootCertificates: roots.map(\.derRepresentation), bundleId: bundleId,
                appAppleId: appAppleId, environment: environment)
        } catch {
            throw CLIError.usage("cannot verify with this configuration: \(error.message)", command: command)
        }
    }

    /// A flag naming another value than the data directory is bound to.
    static func mismatch(_ flag: String, _ given: String, _ recorded: String, _ what: String, _ bound: BoundIdentity)
        -> CLIError
    {
        CLIError.failure(
            "\(flag) \(given) differs from \(recorded), the \(what) \(bound.place) is bound to; leave the flag out "
                + "to use it, or use another data directory for \(given)")
    }

    /// The app a writer with this verifier writes for, recorded at the data directory's first write: the bundle
    /// id and, in production, the App Apple ID.
    static func app(_ verifier: SignedDataVerifier) -> AppIdentity? {
        let configuration = verifier.configuration
        guard let bundleId = configuration.bundleId else { return nil }
        return AppIdentity(
            bundleId: bundleId, appAppleId: configuration.environment == .production ? configuration.appAppleId : nil)
    }

    /// The start-up line naming the environment, the app and the trust roots (on stderr).
    static func announce(_ verifier: SignedDataVerifier) {
        let configuration = verifier.configuration
        var line = "verifying \(configuration.environment.rawValue) notifications"
        if let bundle = configuration.bundleId { line += " for \(bundle)" }
        Terminal.err(line + "\n")
        for der in configuration.rootCertificates {
            if let root = try? X509Certificate(derRepresentation: der) {
                Terminal.err("  " + TrustRoots.describe(root) + "\n")
            }
        }
    }
}
