import LedgerCore
import LedgerLog
import LedgerPostgres
import LedgerService
import LedgerStore
import LedgerSystem

/// Shared steps of the commands: opening the ledger and turning service errors into CLI errors.
enum Commands {
    /// The most memory `ledger serve --store` gives its copy of the records (about 280 MiB a million records);
    /// past it, the copy is given up and reads query the database.
    static let servingReplicaLimit = 2 << 30

    /// Opens the data directory for writing; a lock held by another writer, another environment or app, or
    /// damage before the tail are failures (exit 1) with the log's explanation. `app` is recorded at the first
    /// write that names one. A serving process (`serving`) keeps the records of a PostgreSQL store in memory, up
    /// to ``servingReplicaLimit`` bytes, to answer subject reads.
    static func openWriter(
        _ context: CommandContext, environment: LedgerEnvironment?, app: AppIdentity? = nil, serving: Bool = false
    ) throws(CLIError) -> Ledger {
        if let url = try postgresURL(context) {
            do {
                let store = try PostgresStore.openWriter(
                    url: url, environment: environment?.rawValue, app: app,
                    replicaLimit: serving ? servingReplicaLimit : 0)
                return Ledger(log: store)
            } catch {
                throw failure(ServiceError(error))
            }
        }
        do {
            let ledger = try Ledger.openWriter(
                at: context.dataDirectory, environment: environment, app: app,
                options: LogOptions(lockHolder: "ledger \(context.arguments.command)"))
            if let recovery = ledger.recovery {
                Terminal.err("recovered: \(recovery)\n")
            }
            if let recovery = ledger.evidenceRecovery {
                Terminal.err("recovered: \(recovery)\n")
            }
            if let lost = ledger.lostRecords {
                Terminal.err("warning: \(lost)\n")
            }
            return ledger
        } catch {
            throw failure(error)
        }
    }

    /// Opens the data directory for reading; a directory that does not exist is a failure (exit 1), see
    /// ``existingDataDirectory(_:)``.
    static func openReader(_ context: CommandContext) throws(CLIError) -> Ledger {
        if let url = try postgresURL(context) {
            do {
                return Ledger(log: try PostgresStore.openReader(url: url))
            } catch {
                throw failure(ServiceError(error))
            }
        }
        let directory = try existingDataDirectory(context)
        do {
            return try Ledger.openReader(at: directory)
        } catch {
            throw failure(error)
        }
    }

    /// The data directory of a command that only reads it. A directory that does not exist is a failure: read
    /// as an empty ledger, a mistyped `--data` would report success with empty values (`verify` ok, `digest` an
    /// empty head). An existing directory with no log yet is an empty ledger. Writers that add records create the
    /// directory; `repair` and `rebuild`, which only work on a log that is there, check it too.
    static func existingDataDirectory(_ context: CommandContext) throws(CLIError) -> String {
        let directory = context.dataDirectory
        let status: FileStatus?
        do {
            status = try PosixFileSystem().stat(directory)
        } catch {
            throw CLIError.failure("cannot read the data directory \(directory): \(error.message)")
        }
        guard let status else {
            throw CLIError.failure(
                "no ledger at \(directory): the directory does not exist (check --data or $LEDGER_DATA)")
        }
        guard status.isDirectory else {
            throw CLIError.failure("no ledger at \(directory): it is a file, not a directory")
        }
        return directory
    }

    /// The PostgreSQL connection string of `--store` / `$LEDGER_STORE`, or nil for the file log.
    static func postgresURL(_ context: CommandContext) throws(CLIError) -> String? {
        guard let store = context.store else { return nil }
        guard PostgresURL.isPostgres(store) else {
            throw CLIError.usage(
                "--store '\(PostgresURL.redacted(store))' is not a postgres:// or postgresql:// URL; leave it out "
                    + "(and unset $LEDGER_STORE) to use the file log in --data",
                command: context.arguments.command)
        }
        return store
    }

    /// The environment the ledger is already bound to, if any (nil also when it cannot be read yet).
    static func boundEnvironment(_ context: CommandContext) -> LedgerEnvironment? {
        guard let ledger = try? openReader(context) else { return nil }
        defer { ledger.close() }
        return ledger.environment
    }

    /// `verify` for the configured store: the file log's segments, or the PostgreSQL records table.
    static func verify(_ context: CommandContext, expectHead: [UInt8]?, expectSeq: UInt64?) throws(CLIError)
        -> VerifyReport
    {
        do {
            if let url = try postgresURL(context) {
                let store = try PostgresStore.openReader(url: url)
                defer { store.close() }
                return try store.verify(
                    expectHead: expectHead, expectSeq: expectSeq, readRecord: Ledger.recordReader())
            }
            let directory = try existingDataDirectory(context)
            return try EventLog.verify(
                at: directory, expectHead: expectHead, expectSeq: expectSeq,
                evidenceReferences: Ledger.evidenceReferences, readRecord: Ledger.recordReader())
        } catch let error as LogError {
            throw CLIError.failure(error.message)
        } catch {
            throw error as! CLIError
        }
    }

    /// `repair` for the configured store. PostgreSQL has nothing to cut: a transaction either committed or left
    /// nothing behind. A data directory that does not exist has nothing to repair: a failure, not a new ledger.
    static func repair(_ context: CommandContext) throws(CLIError) -> RepairReport {
        do {
            if let url = try postgresURL(context) {
                let store = try PostgresStore.openWriter(url: url, environment: nil)
                defer { store.close() }
                let head = store.head
                return RepairReport(cut: nil, headSeq: head.seq, headHash: head.hash)
            }
            return try EventLog.repair(
                at: try existingDataDirectory(context), evidenceReferences: Ledger.evidenceReferences)
        } catch let error as LogError {
            throw CLIError.failure(error.message)
        } catch {
            throw error as! CLIError
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

    /// The exit status of a run that refused `rejected` items into the quarantine: 0 when there were none,
    /// else 1, after saying on stderr how many and where to look (stdout keeps the counts).
    static func rejectedStatus(_ rejected: Int, _ context: CommandContext) -> Int32 {
        guard rejected > 0 else { return 0 }
        Terminal.err("error: \(rejected) rejected; see 'ledger quarantine --data \(context.dataDirectory)'\n")
        return 1
    }
}
