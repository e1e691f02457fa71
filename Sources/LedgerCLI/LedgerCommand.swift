/// One subcommand of `ledger`: its spec (name, help, the options it accepts) and what it does, in one type, as
/// swift-argument-parser's `ParsableCommand` holds its configuration and its `run()`.
protocol LedgerCommand: Sendable {
    /// The command's name, help and options: what the parser accepts and `ledger help NAME` prints.
    static var spec: CommandSpec { get }

    /// Runs the command on its parsed arguments and returns the exit status (0 ok, 1 a failure found); usage and
    /// internal errors are thrown.
    static func run(_ context: CommandContext) throws(CLIError) -> Int32
}

/// Every command of `ledger`, with its help: the contract in code (README.md's command reference describes it).
public enum LedgerCommands {
    /// All commands, in help order.
    static let all: [any LedgerCommand.Type] = [
        IngestCommand.self, InspectCommand.self, StateCommand.self, HistoryCommand.self, VerifyCommand.self,
        ExportCommand.self, ImportCommand.self, RebuildCommand.self, RepairCommand.self, CatalogCommand.self,
        LinkCommand.self, VoidCommand.self, QuarantineCommand.self, ReconcileCommand.self, AppStoreCommand.self,
        AuditCommand.self, DigestCommand.self, ReportCommand.self, CorrectCommand.self, SimulateCommand.self,
        DemoCommand.self, ServeCommand.self,
    ]

    /// The specs of all commands, in help order.
    public static let specs: [CommandSpec] = all.map { $0.spec }

    /// The command with this name.
    static func command(named name: String) -> (any LedgerCommand.Type)? {
        all.first { $0.spec.name == name }
    }
}
