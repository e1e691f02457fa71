import CPostgres

/// One statement of a pipeline: SQL with parameters `$1…$n`, sent in binary like ``PostgresConnection/execute(_:_:)``.
public struct PostgresStatement {
    /// The statement's text.
    public var sql: String
    /// Its parameters.
    public var parameters: [PostgresValue]
    /// The name it is prepared under on the connection (``PostgresConnection/prepare(_:_:types:)``), when it is
    /// run often: the server then parses and plans it once per connection instead of once per run.
    public var preparedName: String?

    /// A statement.
    public init(_ sql: String, _ parameters: [PostgresValue] = []) {
        self.sql = sql
        self.parameters = parameters
    }

    /// A statement run as the one prepared under `name` (the caller prepares it first, with `sql`).
    public init(prepared name: String, _ sql: String, _ parameters: [PostgresValue]) {
        self.init(sql, parameters)
        preparedName = name
    }
}

extension PostgresConnection {
    /// Sends every statement at once and waits for their results in one round trip (libpq's pipeline mode):
    /// a transaction `BEGIN … COMMIT` costs one exchange with the server instead of one per statement. The server
    /// runs them in order; after the first failure it skips the rest (a transaction the pipeline opened is then
    /// left failed: roll it back). Only for statements with small results.
    /// - Returns: the results, one per statement.
    /// - Throws: the first statement's failure, as ``execute(_:_:)`` reports it.
    @discardableResult
    public func pipeline(_ statements: [PostgresStatement]) throws(PostgresError) -> [PostgresResult] {
        guard PQenterPipelineMode(handle) == 1 else {
            throw PostgresError(
                .connection, "PostgreSQL at \(displayURL) refused a pipeline: \(Self.trimmed(PQerrorMessage(handle)))")
        }
        var failure: PostgresError?
        var sent = 0
        for statement in statements {
            let accepted = Self.withEncoded(statement.parameters) { count, types, values, lengths, formats in
                if let name = statement.preparedName {
                    return PQsendQueryPrepared(handle, name, count, values, lengths, formats, 1)
                }
                return PQsendQueryParams(handle, statement.sql, count, types, values, lengths, formats, 1)
            }
            guard accepted == 1 else {
                failure = lostConnection()
                break
            }
            sent += 1
        }
        if failure == nil, PQpipelineSync(handle) != 1 { failure = lostConnection() }
        var results: [PostgresResult] = []
        results.reserveCapacity(sent)
        // Each statement's result is followed by a null; the sync point closes the pipeline.
        for index in 0..<sent where failure == nil || isHealthy {
            guard let raw = PQgetResult(handle) else {
                failure = failure ?? lostConnection()
                break
            }
            let status = PQresultStatus(raw)
            if status == PGRES_PIPELINE_ABORTED {
                PQclear(raw)
            } else {
                do {
                    results.append(try check(raw, statements[index].sql))
                } catch {
                    failure = failure ?? error
                }
            }
            while let extra = PQgetResult(handle) { PQclear(extra) }
        }
        while isHealthy, let raw = PQgetResult(handle) {
            let status = PQresultStatus(raw)
            PQclear(raw)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        PQexitPipelineMode(handle)
        if let failure { throw failure }
        guard results.count == statements.count else { throw lostConnection() }
        return results
    }

    /// Prepares a statement under `name` for this connection's life (``executePrepared(_:_:)`` runs it).
    public func prepare(_ name: String, _ sql: String, types: [UInt32]) throws(PostgresError) {
        _ = try check(PQprepare(handle, name, sql, Int32(types.count), types), sql)
    }

    /// Runs a statement prepared with ``prepare(_:_:types:)``, parameters and results in binary.
    @discardableResult
    public func executePrepared(_ name: String, _ parameters: [PostgresValue]) throws(PostgresError)
        -> PostgresResult
    {
        let result = Self.withEncoded(parameters) { count, _, values, lengths, formats in
            PQexecPrepared(handle, name, count, values, lengths, formats, 1)
        }
        return try check(result, "prepared statement \(name)")
    }

    /// The error of a connection that stopped answering.
    func lostConnection() -> PostgresError {
        PostgresError(
            .connection,
            "lost the connection to PostgreSQL at \(displayURL): \(Self.trimmed(PQerrorMessage(handle))); check the "
                + "server, then retry")
    }
}
