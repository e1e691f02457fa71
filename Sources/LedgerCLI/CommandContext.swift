import LedgerAppStore
import LedgerCore
import LedgerJSON

/// What every command gets: its parsed arguments, the environment, the catalog and shared helpers.
///
/// A command reads its options by their ``OptionSpec`` (`context.instant(StateCommand.at)`), and only options its
/// spec declares: reading another is a bug in ledger (exit 70), which the tests of every command path catch.
struct CommandContext {
    let arguments: ParsedArguments
    let environment: [String: String]
    let catalog: Catalog
    /// The options the command's spec declares (none for `help`).
    let declared: [OptionSpec]

    init(arguments: ParsedArguments, environment: [String: String]) throws(CLIError) {
        self.arguments = arguments
        self.environment = environment
        self.declared = LedgerCommands.command(named: arguments.command)?.spec.options ?? []
        if arguments.value(SharedOptions.data.name)?.isEmpty == true {
            throw CLIError.usage("--data needs a directory; it is empty", command: arguments.command)
        }
        if let path = arguments.value(SharedOptions.catalog.name) {
            self.catalog = try CatalogFile.load(path: path)
        } else {
            self.catalog = .visla
        }
    }

    /// Whether `--json` was given (false for a command without it).
    var json: Bool { arguments.has(SharedOptions.json.name) }

    /// The data directory: `--data`, else `$LEDGER_DATA` (when set and not empty), else `./Events`.
    var dataDirectory: String {
        arguments.value(SharedOptions.data.name) ?? environment["LEDGER_DATA"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "Events"
    }

    /// Where temporary files go: `$TMPDIR` (when set and not empty), else `/tmp`.
    var temporaryDirectory: String { environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp" }

    /// Where the ledger lives when not in the data directory: `--store URL`, else `$LEDGER_STORE` (a
    /// `postgres://` or `postgresql://` connection string); nil means the file log in ``dataDirectory``.
    var store: String? {
        guard let value = arguments.value(SharedOptions.store.name) ?? environment["LEDGER_STORE"], !value.isEmpty
        else { return nil }
        return value
    }

    /// The option's name, once it is known to be one the command's spec declares.
    private func declaredName(_ option: OptionSpec) throws(CLIError) -> String {
        guard declared.contains(where: { $0.name == option.name }) else {
            throw CLIError(
                .internalError,
                "'ledger \(arguments.command)' reads \(option.name), which its spec does not declare; this is a bug "
                    + "in ledger")
        }
        return option.name
    }

    /// The last value of an option, nil when absent.
    func value(_ option: OptionSpec) throws(CLIError) -> String? { arguments.value(try declaredName(option)) }

    /// Every value of a repeatable option.
    func all(_ option: OptionSpec) throws(CLIError) -> [String] { arguments.all(try declaredName(option)) }

    /// Whether a flag (or option) was given.
    func has(_ option: OptionSpec) throws(CLIError) -> Bool { arguments.has(try declaredName(option)) }

    /// A required option's value.
    func required(_ option: OptionSpec) throws(CLIError) -> String {
        guard let value = try value(option), !value.isEmpty else {
            throw CLIError.usage("missing \(option.name)", command: arguments.command)
        }
        return value
    }

    /// An instant option (ISO 8601 or milliseconds), nil when absent.
    func instant(_ option: OptionSpec) throws(CLIError) -> Instant? {
        guard let text = try value(option) else { return nil }
        guard let instant = Instant(parsing: text) else {
            throw CLIError.usage(
                "\(option.name) '\(text)' is not a time: use ISO 8601 UTC (2026-03-01T00:00:00Z) or milliseconds "
                    + "since the epoch, within the years 0000 to 9999",
                command: arguments.command)
        }
        return instant
    }

    /// An integer option within a range, nil when absent.
    func integer(_ option: OptionSpec, in range: ClosedRange<Int64> = Int64.min...Int64.max)
        throws(CLIError) -> Int64?
    {
        guard let text = try value(option) else { return nil }
        guard let value = Int64(text), range.contains(value) else {
            throw CLIError.usage(
                "\(option.name) '\(text)' is not an integer in \(range)", command: arguments.command)
        }
        return value
    }

    /// The subject named by `--user`, `--account-token` or `--original-transaction-id` (exactly one).
    func subject() throws(CLIError) -> SubjectQuery {
        var found: [SubjectQuery] = []
        if let text = try value(SharedOptions.user) {
            guard let user = AccountToken.userId(text: text) else {
                throw CLIError.usage(
                    "--user '\(text)' is not a user id: an integer from 0 to \(UInt32.max), in decimal digits without "
                        + "a sign or leading zero", command: arguments.command)
            }
            found.append(.user(user))
        }
        if let token = try value(SharedOptions.accountToken) {
            guard let canonical = AccountToken.canonical(token) else {
                throw CLIError.usage("--account-token '\(token)' is not a UUID", command: arguments.command)
            }
            found.append(.account(canonical))
        }
        if let otid = try value(SharedOptions.originalTransactionId) {
            guard !otid.isEmpty, otid.utf8.count <= 64 else {
                throw CLIError.usage(
                    "--original-transaction-id must be 1–64 characters", command: arguments.command)
            }
            found.append(.originalTransaction(otid))
        }
        guard found.count == 1 else {
            throw CLIError.usage(
                "name exactly one subject: --user ID, --account-token UUID or --original-transaction-id ID",
                command: arguments.command)
        }
        return found[0]
    }

    /// Says that verification refused something: with `--json` `{"valid":false,"status":"STATUS","message":"…"}`
    /// on stdout, else `error: STATUS: message` on stderr. Returns the exit status, 1.
    func refused(_ error: VerificationError) -> Int32 {
        if json {
            printJSON(
                .object(["valid": false, "status": .string(error.status.rawValue), "message": .string(error.message)]))
        } else {
            Terminal.err("error: \(error.status.rawValue): \(error.message)\n")
        }
        return 1
    }

    /// Prints a JSON document (pretty for people, compact when piped is not needed: always pretty here).
    func printJSON(_ value: JSONValue) {
        Terminal.line(value.serialized(.pretty))
    }
}
