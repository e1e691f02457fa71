import LedgerAppStore
import LedgerAppStoreAPI
import LedgerCore

/// The App Store Server API flags (`--key-file`, `--key-id`, `--issuer-id`, `--api-base-url`, `--api-ca-file`)
/// turned into a client. The key flags may come from `$LEDGER_APPSTORE_KEY_FILE`, `$LEDGER_APPSTORE_KEY_ID` and
/// `$LEDGER_APPSTORE_ISSUER_ID`; the key never appears in a message.
enum APIClientSettings {
    /// A flag's value, else the environment variable's; a usage error naming both when neither is set.
    static func value(_ context: CommandContext, _ flag: OptionSpec, _ variable: String) throws(CLIError) -> String {
        if let value = try context.value(flag), !value.isEmpty { return value }
        if let value = context.environment[variable], !value.isEmpty { return value }
        throw CLIError.usage(
            "missing \(flag.name) (or $\(variable)): the App Store Server API needs an in-app purchase key",
            command: context.arguments.command)
    }

    /// One line on stderr before each retry's pause, so that a wait is not taken for a hang.
    static func announce(_ notice: AppStoreServerAPIClient.RetryNotice) {
        let seconds = Double(notice.delayMilliseconds) / 1000
        Terminal.err(
            "warning: \(notice.error.message); retrying in \(seconds) s (attempt \(notice.nextAttempt) of "
                + "\(notice.maxAttempts))\n")
    }

    /// The client for the configuration's environment and app.
    static func client(
        _ context: CommandContext, configuration: VerifierConfiguration,
        pause: @escaping @Sendable (Int) -> Void = HTTPSClient.pause(milliseconds:)
    ) throws(CLIError) -> AppStoreServerAPIClient {
        let command = context.arguments.command
        let path = try value(context, SharedOptions.keyFile, "LEDGER_APPSTORE_KEY_FILE")
        let keyId = try value(context, SharedOptions.keyId, "LEDGER_APPSTORE_KEY_ID")
        let issuerId = try value(context, SharedOptions.issuerId, "LEDGER_APPSTORE_ISSUER_ID")
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(path, limit: 1 << 16)
        } catch {
            throw CLIError.usage("cannot read the key file: \(error.message)", command: command)
        }
        let key: AppStoreAPIKey
        do {
            key = try AppStoreAPIKey(keyId: keyId, issuerId: issuerId, file: bytes)
        } catch {
            throw CLIError.usage("\(path): \(error.message)", command: command)
        }
        guard let bundleId = configuration.bundleId else {
            throw CLIError.usage("--bundle-id ID is required: the token names the app", command: command)
        }
        var caFile: String?
        if let file = try context.value(SharedOptions.apiCAFile) {
            do {
                try InputFile.checkReadable([file])
            } catch {
                throw CLIError.usage("--api-ca-file: \(error.message)", command: command)
            }
            caFile = file
        }
        let baseURL =
            try context.value(SharedOptions.apiBaseURL)
            ?? AppStoreServerAPIClient.baseURL(for: configuration.environment)
        do {
            return try AppStoreServerAPIClient(
                baseURL: baseURL, tokens: APITokenIssuer(key: key, bundleId: bundleId),
                transport: HTTPSClient(caFile: caFile), pause: pause, retrying: announce)
        } catch {
            throw CLIError.usage(error.message, command: command)
        }
    }
}
