import LedgerStore

/// One connection of a store, with what the store learned through it; used only while holding the store's mutex
/// for it. Its calls throw `LogError`, so the store speaks the seam's language throughout.
final class PostgresSession {
    let connection: PostgresConnection
    /// Whether the ledger's tables are known to exist.
    var schemaReady = false
    /// The statements prepared on this connection (forgotten when it reconnects).
    var prepared: Set<String> = []
    /// The head this connection's last commit left, while nothing since made it uncertain: the next append
    /// assumes it (one round trip) and falls back to reading the head when another writer moved it.
    var committedHead: PostgresHead?

    init(_ connection: PostgresConnection) {
        self.connection = connection
    }

    /// Runs a parameterless script.
    @discardableResult
    func run(_ sql: String) throws(LogError) -> PostgresResult {
        do {
            return try connection.run(sql)
        } catch {
            throw Self.logError(error)
        }
    }

    /// Runs one statement with binary parameters.
    @discardableResult
    func execute(_ sql: String, _ parameters: [PostgresValue] = []) throws(LogError) -> PostgresResult {
        do {
            return try connection.execute(sql, parameters)
        } catch {
            throw Self.logError(error)
        }
    }

    /// Runs statements in one round trip (``PostgresConnection/pipeline(_:)``).
    @discardableResult
    func pipeline(_ statements: [PostgresStatement]) throws(LogError) -> [PostgresResult] {
        do {
            try prepare(statements)
            return try connection.pipeline(statements)
        } catch {
            throw Self.logError(error)
        }
    }

    /// Runs one of the ledger's queries, prepared on this connection the first time.
    func execute(_ query: PostgresQuery, _ parameters: [PostgresValue] = []) throws(LogError) -> PostgresResult {
        do {
            if !prepared.contains(query.name) {
                try connection.prepare(query.name, query.sql, types: query.parameterTypes)
                prepared.insert(query.name)
            }
            return try connection.executePrepared(query.name, parameters)
        } catch {
            throw Self.logError(error)
        }
    }

    /// Sends `statements` and COMMIT in one round trip (a transaction `BEGIN` opened, in the pipeline or
    /// before); a failure rolls the transaction back.
    /// - Throws: the first failure; when the connection broke, saying that whether the commit took effect is
    ///   unknown.
    func commit(_ statements: [PostgresStatement]) throws(LogError) {
        try committing { () throws(PostgresError) in
            try prepare(statements)
            _ = try connection.pipeline(statements + [PostgresStatement("COMMIT")])
        }
    }

    /// Runs a script ending in COMMIT whose COPY statements take their rows from `rows`
    /// (``PostgresConnection/runCopying(_:rows:)``); a failure rolls the transaction back, as ``commit(_:)``.
    func commitCopying(
        _ script: String, rows: (Int, inout PostgresCopyEncoder) throws(PostgresError) -> Void
    ) throws(LogError) {
        try committing { () throws(PostgresError) in _ = try connection.runCopying(script, rows: rows) }
    }

    /// Runs `send`, which commits the open transaction; a failure rolls it back.
    private func committing(_ send: () throws(PostgresError) -> Void) throws(LogError) {
        do {
            try send()
        } catch {
            rollback()
            let failure = Self.logError(error)
            guard error.code == .connection else { throw failure }
            throw LogError(
                failure.code,
                "the commit did not complete, so whether it took effect is unknown: \(failure.message) "
                    + "(retrying is safe: records already stored come back as duplicates)", cause: error)
        }
    }

    /// Prepares the statements of a pipeline that run as prepared ones and are not prepared on this connection
    /// yet (once per connection; a prepared statement cannot be created inside a pipeline that uses it).
    private func prepare(_ statements: [PostgresStatement]) throws(PostgresError) {
        for statement in statements {
            guard let name = statement.preparedName, !prepared.contains(name) else { continue }
            try connection.prepare(name, statement.sql, types: statement.parameters.map(\.oid))
            prepared.insert(name)
        }
    }

    /// Forgets what the connection held (after it reconnected).
    func forgetConnectionState() {
        schemaReady = false
        prepared = []
        committedHead = nil
    }

    /// Runs `body` in a transaction: COMMIT when it returns (durable: the commit waits for the WAL flush), and
    /// ROLLBACK when it throws.
    func transaction<R>(_ body: () throws(LogError) -> R) throws(LogError) -> R {
        try run("BEGIN")
        let value: R
        do {
            value = try body()
        } catch {
            rollback()
            throw error
        }
        do {
            try run("COMMIT")
        } catch {
            rollback()
            throw LogError(
                error.code,
                "the commit did not complete, so whether it took effect is unknown: \(error.message) "
                    + "(retrying is safe: records already stored come back as duplicates)", cause: error.cause)
        }
        return value
    }

    /// Ends a failed transaction, if one is still open.
    func rollback() {
        if connection.isHealthy && connection.inTransaction { _ = try? connection.run("ROLLBACK") }
    }

    /// Whether the ledger's tables exist (checked until they do, then remembered).
    func tablesExist() throws(LogError) -> Bool {
        if schemaReady { return true }
        let result = try execute(PostgresSchema.existsQuery)
        schemaReady = result.rowCount == 1 && result.bytes(0, 0) == [1]
        return schemaReady
    }

    /// Creates the ledger's tables when they are missing.
    func createTables() throws(LogError) {
        if try tablesExist() { return }
        do {
            try connection.run(PostgresSchema.createScript)
        } catch {
            rollback()
            var failure = Self.logError(error)
            if error.sqlState == "3F000" {
                failure.message += "; create the schema named by the connection's search_path first"
            }
            throw failure
        }
        schemaReady = true
    }

    /// A PostgreSQL failure as the seam reports it: connection and statement failures are I/O errors (the caller
    /// may retry; nothing partial was stored), an unreadable result is damage.
    static func logError(_ error: PostgresError) -> LogError {
        switch error.code {
        case .protocolViolation:
            return LogError(.damaged, error.description, cause: error)
        default:
            return LogError(.io, error.description, cause: error)
        }
    }
}
