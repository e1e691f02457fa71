import LedgerAppStore
import LedgerCore
import LedgerJSON

/// What every command gets: its parsed arguments, the environment, the catalog and shared helpers.
struct CommandContext {
    let arguments: ParsedArguments
    let environment: [String: String]
    let catalog: Catalog

    init(arguments: ParsedArguments, environment: [String: String]) throws(CLIError) {
        self.arguments = arguments
        self.environment = environment
        if arguments.value("--data")?.isEmpty == true {
            throw CLIError.usage("--data needs a directory; it is empty", command: arguments.command)
        }
        if let path = arguments.value("--catalog") {
            self.catalog = try CatalogFile.load(path: path)
        } else {
            self.catalog = .visla
        }
    }

    /// Whether `--json` was given.
    var json: Bool { arguments.has("--json") }

    /// The data directory: `--data`, else `$LEDGER_DATA` (when set and not empty), else `./Events`.
    var dataDirectory: String {
        arguments.value("--data") ?? environment["LEDGER_DATA"].flatMap { $0.isEmpty ? nil : $0 } ?? "Events"
    }

    /// Where temporary files go: `$TMPDIR` (when set and not empty), else `/tmp`.
    var temporaryDirectory: String { environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp" }

    /// Where the ledger lives when not in the data directory: `--store URL`, else `$LEDGER_STORE` (a
    /// `postgres://` or `postgresql://` connection string); nil means the file log in ``dataDirectory``.
    var store: String? {
        guard let value = arguments.value("--store") ?? environment["LEDGER_STORE"], !value.isEmpty else { return nil }
        return value
    }

    /// A required option's value.
    func required(_ name: String) throws(CLIError) -> String {
        guard let value = arguments.value(name), !value.isEmpty else {
            throw CLIError.usage("missing \(name)", command: arguments.command)
        }
        return value
    }

    /// An instant option (ISO 8601 or milliseconds), nil when absent.
    func instant(_ name: String) throws(CLIError) -> Instant? {
        guard let text = arguments.value(name) else { return nil }
        guard let instant = Instant(parsing: text) else {
            throw CLIError.usage(
                "\(name) '\(text)' is not a time: use ISO 8601 UTC (2026-03-01T00:00:00Z) or milliseconds since the "
                    + "epoch, within the years 0000 to 9999",
                command: arguments.command)
        }
        return instant
    }

    /// An integer option within a range, nil when absent.
    func integer(_ name: String, in range: ClosedRange<Int64> = Int64.min...Int64.max)
        throws(CLIError) -> Int64?
    {
        guard let text = arguments.value(name) else { return nil }
        guard let value = Int64(text), range.contains(value) else {
            throw CLIError.usage(
                "\(name) '\(text)' is not an integer in \(range)", command: arguments.command)
        }
        return value
    }

    /// The subject named by `--user`, `--account-token` or `--original-transaction-id` (exactly one).
    func subject() throws(CLIError) -> SubjectQuery {
        var found: [SubjectQuery] = []
        if let text = arguments.value("--user") {
            guard let user = AccountToken.userId(text: text) else {
                throw CLIError.usage(
                    "--user '\(text)' is not a user id: an integer from 0 to \(UInt32.max), in decimal digits without "
                        + "a sign or leading zero", command: arguments.command)
            }
            found.append(.user(user))
        }
        if let token = arguments.value("--account-token") {
            guard let canonical = AccountToken.canonical(token) else {
                throw CLIError.usage("--account-token '\(token)' is not a UUID", command: arguments.command)
            }
            found.append(.account(canonical))
        }
        if let otid = arguments.value("--original-transaction-id") {
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
