import LedgerErrors

/// The error of the PostgreSQL layer: an opaque code, a message that says what happened and what to do, the
/// server's SQLSTATE when it sent one, an optional cause, and where it was raised. Equality is on the code only,
/// so new codes never break callers. ``PostgresStore`` turns it into a `LogError` at the storage seam.
public struct PostgresError: LedgerError {
    /// A stable, opaque classification of a PostgreSQL failure.
    public typealias Code = ErrorCode<PostgresError>

    /// The code, message, cause and origin of the error.
    public var detail: ErrorDetail<Code>
    /// The five-character SQLSTATE the server reported (`23505` unique violation, `40001` serialization…).
    public var sqlState: String?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, sqlState: String? = nil, cause: (any Error & Sendable)? = nil,
        file: String = #fileID, line: Int = #line
    ) {
        detail = ErrorDetail(code, message, cause: cause, file: file, line: line)
        self.sqlState = sqlState
    }

    /// The message, with the SQLSTATE when the server sent one.
    public var description: String {
        sqlState.map { "\(message) (SQLSTATE \($0))" } ?? message
    }
}

extension ErrorCode where Domain == PostgresError {
    /// The server could not be reached, refused the connection, or the connection broke.
    public static var connection: Self { Self("connection") }
    /// The server rejected a statement (see ``PostgresError/sqlState``).
    public static var statement: Self { Self("statement") }
    /// A result had another shape or encoding than the statement asks for.
    public static var protocolViolation: Self { Self("protocolViolation") }
    /// The connection string is not one this program understands.
    public static var invalidURL: Self { Self("invalidURL") }
}
