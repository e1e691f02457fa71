import LedgerAppStore
import LedgerAppStoreAPI
import LedgerCore

/// The App Store Server API flags (`--key-file`, `--key-id`, `--issuer-id`, `--api-base-url`, `--api-ca-file`)
/// turned into a client. The key flags may come from `$LEDGER_APPSTORE_KEY_FILE`, `$LEDGER_APPSTORE_KEY_ID` and
/// `$LEDGER_APPSTORE_ISSUER_ID`; the key never appears in a message.
enum APIClientSettings {
    /// The flags, for the command specs.
    static let options: [OptionSpec] = [
        OptionSpec(
            "--key-file", value: "FILE",
            "The App Store Connect in-app purchase key (.p8) (or $LEDGER_APPSTORE_KEY_FILE)."),
        OptionSpec("--key-id", value: "K", "The key's id (or $LEDGER_APPSTORE_KEY_ID)."),
        OptionSpec("--issuer-id", value: "I", "The issuer id from App Store Connect (or $LEDGER_APPSTORE_ISSUER_ID)."),
        OptionSpec(
            "--api-base-url", value: "URL",
            "The App Store Server API (default: Apple's production or sandbox server, by the data's environment)."),
        OptionSpec(
            "--api-ca-file", value: "FILE", "PEM CA certificates to trust instead of the system's store (tests)."),
    ]

    /// A flag's value, else the environment variable's; a usage error naming both when neither is set.
    static func value(_ context: CommandContext, _ flag: String, _ variable: String) throws(CLIError) -> String {
        if let value = context.arguments.value(flag), !value.isEmpty { return value }
        if let value = context.environment[variable], !value.isEmpty { return value }
        throw CLIError.usage(
            "missing \(flag) (or $\(variable)): the App Store Server API needs an in-app purchase key",
            command: context.arguments.command)
    }

    /// The client for the verifier's environment and app.
    static func client(
        _ context: CommandContext, verifier: SignedDataVerifier,
        pause: @escaping @Sendable (Int) -> Void = HTTPSClient.pause(milliseconds:)
    ) throws(CLIError) -> AppStoreServerAPIClient {
        let command = context.arguments.command
        let path = try value(context, "--key-file", "LEDGER_APPSTORE_KEY_FILE")
        let keyId = try value(context, "--key-id", "LEDGER_APPSTORE_KEY_ID")
        let issuerId = try value(context, "--issuer-id", "LEDGER_APPSTORE_ISSUER_ID")
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
        guard let bundleId = verifier.configuration.bundleId else {
            throw CLIError.usage("--bundle-id ID is required: the token names the app", command: command)
        }
        var caFile: String?
        if let file = context.arguments.value("--api-ca-file") {
            do {
                try InputFile.checkReadable([file])
            } catch {
                throw CLIError.usage("--api-ca-file: \(error.message)", command: command)
            }
            caFile = file
        }
        let baseURL =
            context.arguments.value("--api-base-url")
            ?? AppStoreServerAPIClient.baseURL(for: verifier.configuration.environment)
        do {
            return try AppStoreServerAPIClient(
                baseURL: baseURL, tokens: APITokenIssuer(key: key, bundleId: bundleId),
                transport: HTTPSClient(caFile: caFile), pause: pause)
        } catch {
            throw CLIError.usage(error.message, command: command)
        }
    }
}
