import CPostgres

/// One libpq connection (`PGconn`), closed exactly once when the value goes away.
///
/// Not thread-safe, like libpq's connections: one thread at a time (``PostgresStore`` keeps each connection behind
/// a `Mutex`). Every statement goes through ``execute(_:_:)`` with binary parameters and binary results, or
/// ``run(_:)`` for parameterless scripts (DDL, `BEGIN`…).
public final class PostgresConnection {
    let handle: OpaquePointer
    /// The connection string without its password, for messages.
    public let displayURL: String

    /// Connects. The connection string is a `postgres://` / `postgresql://` URI or `key=value` pairs, as libpq
    /// reads them (host, port, dbname, user, password, sslmode, target_session_attrs, options, …); libpq's
    /// environment variables (`PGHOST`, `PGPASSWORD`, …) fill what it leaves out.
    public init(_ connectionString: String) throws(PostgresError) {
        displayURL = PostgresURL.redacted(connectionString)
        guard let connection = PQconnectdb(connectionString) else {
            throw PostgresError(.connection, "libpq could not allocate a connection to \(displayURL)")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let reason = Self.trimmed(PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError(
                .connection,
                "cannot connect to PostgreSQL at \(displayURL): \(reason); check that the server runs and the "
                    + "connection string is right")
        }
        // Notices (e.g. "trigger … does not exist, skipping" while creating the schema) are not errors; libpq
        // would print them on stderr.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        handle = connection
    }

    deinit {
        PQfinish(handle)
    }

    /// Whether the connection is usable (false once the server went away or the socket broke).
    public var isHealthy: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Whether a transaction is open (or failed and not yet rolled back) on this connection.
    public var inTransaction: Bool {
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Reconnects with the same parameters (after a broken connection, or a failover to a new primary).
    public func reset() throws(PostgresError) {
        PQreset(handle)
        guard isHealthy else {
            throw PostgresError(
                .connection,
                "lost the connection to PostgreSQL at \(displayURL) and could not reconnect: "
                    + "\(Self.trimmed(PQerrorMessage(handle))); check the server, then retry")
        }
    }

    /// The server's version number (e.g. 150018 for 15.18).
    public var serverVersion: Int { Int(PQserverVersion(handle)) }

    /// Runs SQL text without parameters; it may hold several statements (a schema script, `BEGIN; …`).
    @discardableResult
    public func run(_ sql: String) throws(PostgresError) -> PostgresResult {
        try check(PQexec(handle, sql), sql)
    }

    /// Runs one statement with parameters `$1…$n`, sent in binary with their types; the result comes back in
    /// binary (read it with ``PostgresResult``'s accessors).
    @discardableResult
    public func execute(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> PostgresResult {
        let result = Self.withEncoded(parameters) { count, types, values, lengths, formats in
            PQexecParams(handle, sql, count, types, values, lengths, formats, 1)
        }
        return try check(result, sql)
    }

    /// Calls `body` with parameters in libpq's form: their count, type OIDs, binary values, lengths and formats
    /// (all binary); the pointers are valid only during the call.
    static func withEncoded<R>(
        _ parameters: [PostgresValue],
        _ body: (Int32, [UInt32], [UnsafePointer<CChar>?], [Int32], [Int32]) -> R
    ) -> R {
        var buffer: [UInt8] = []
        var starts: [Int] = []
        var lengths: [Int32] = []
        starts.reserveCapacity(parameters.count)
        lengths.reserveCapacity(parameters.count)
        for parameter in parameters {
            let start = buffer.count
            parameter.encode(into: &buffer)
            starts.append(start)
            lengths.append(Int32(buffer.count - start))
        }
        let types = parameters.map(\.oid)
        let formats = [Int32](repeating: 1, count: parameters.count)
        buffer.append(0)  // so that an empty last value still has an address inside the buffer
        return buffer.withUnsafeBytes { raw -> R in
            let base = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
            let values: [UnsafePointer<CChar>?] = starts.map { UnsafePointer(base + $0) }
            return body(Int32(parameters.count), types, values, lengths, formats)
        }
    }

    /// Wraps a result, turning a failed one into an error.
    func check(_ result: OpaquePointer?, _ sql: String) throws(PostgresError) -> PostgresResult {
        guard let result else {
            throw PostgresError(
                .connection,
                "PostgreSQL at \(displayURL) did not answer: \(Self.trimmed(PQerrorMessage(handle))); "
                    + "check the server, then retry")
        }
        let wrapped = PostgresResult(result)
        let status = PQresultStatus(result)
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY { return wrapped }
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
        let reason = Self.trimmed(PQresultErrorMessage(result))
        if !isHealthy || state?.hasPrefix("08") == true || state?.hasPrefix("57P") == true {
            throw PostgresError(
                .connection,
                "lost the connection to PostgreSQL at \(displayURL): \(reason); check the server, "
                    + "then retry", sqlState: state)
        }
        let statement = sql.count > 80 ? String(sql.prefix(80)) + "…" : sql
        throw PostgresError(
            .statement, "PostgreSQL at \(displayURL) refused `\(statement)`: \(reason)", sqlState: state)
    }

    /// A C message without its trailing newline.
    static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "unknown error" }
        var text = String(cString: message)
        while text.last == "\n" || text.last == " " { text.removeLast() }
        return text.isEmpty ? "unknown error" : text
    }
}
