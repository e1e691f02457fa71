import LedgerCore
import LedgerService

/// Shared steps of the commands: opening the ledger and turning service errors into CLI errors.
enum Commands {
    /// Opens the data directory for writing; a lock held by another writer, another environment, or
    /// damage before the tail are failures (exit 1) with the log's explanation.
    static func openWriter(_ context: CommandContext, environment: LedgerEnvironment?) throws(CLIError) -> Ledger {
        do {
            let ledger = try Ledger.openWriter(
                at: context.dataDirectory, environment: environment, catalog: context.catalog)
            if let recovery = ledger.log.recovery {
                Terminal.err("recovered: \(recovery)\n")
            }
            return ledger
        } catch {
            throw failure(error)
        }
    }

    /// Opens the data directory for reading.
    static func openReader(_ context: CommandContext) throws(CLIError) -> Ledger {
        do {
            return try Ledger.openReader(at: context.dataDirectory, catalog: context.catalog)
        } catch {
            throw failure(error)
        }
    }

    /// A service error as the CLI reports it.
    static func failure(_ error: ServiceError) -> CLIError {
        switch error.code {
        case .configuration, .invalidInput: return CLIError(.failure, error.message)
        case .other: return CLIError(.internalError, error.message)
        default: return CLIError(.failure, error.message)
        }
    }
}
