/// The CLI's error: what the user sees after `error:` and which exit code it gives.
public struct CLIError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, opaque classification that decides the exit code.
    public struct Code: Hashable, Sendable {
        fileprivate let raw: String
        /// The command line is wrong: exit 64, usage printed.
        public static let usage = Code(raw: "usage")
        /// The command ran and found a failure: exit 1.
        public static let failure = Code(raw: "failure")
        /// Something broke inside the ledger: exit 70.
        public static let internalError = Code(raw: "internal")
    }

    /// The classification.
    public var code: Code
    /// What happened and what to do.
    public var message: String
    /// The command whose usage to show (usage errors).
    public var command: String?
    /// The underlying error, when there is one.
    public var cause: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, command: String? = nil, cause: String? = nil) {
        self.code = code
        self.message = message
        self.command = command
        self.cause = cause
    }

    /// A usage error.
    public static func usage(_ message: String, command: String?) -> CLIError {
        CLIError(.usage, message, command: command)
    }

    /// A failure found by a command that ran.
    public static func failure(_ message: String) -> CLIError { CLIError(.failure, message) }

    /// The exit code: 64 usage, 1 failure, 70 internal.
    public var exitCode: Int32 {
        switch code {
        case .usage: return 64
        case .failure: return 1
        default: return 70
        }
    }

    public var description: String { message }

    public static func == (lhs: CLIError, rhs: CLIError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
