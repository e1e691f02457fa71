/// The error of the PostgreSQL layer: an opaque code, a message that says what happened and what to do, the
/// server's SQLSTATE when it sent one, an optional cause, and where it was raised. Equality is on the code only,
/// so new codes never break callers. ``PostgresStore`` turns it into a `LogError` at the storage seam.
public struct PostgresError: Error, Hashable, CustomStringConvertible, Sendable {
    /// A stable, opaque classification of a PostgreSQL failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let raw: String
        private init(_ raw: String) { self.raw = raw }
        public var description: String { raw }

        /// The server could not be reached, refused the connection, or the connection broke.
        public static let connection = Code("connection")
        /// The server rejected a statement (see ``PostgresError/sqlState``).
        public static let statement = Code("statement")
        /// A result had another shape or encoding than the statement asks for.
        public static let protocolViolation = Code("protocolViolation")
        /// The connection string is not one this program understands.
        public static let invalidURL = Code("invalidURL")
    }

    /// What kind of failure this is.
    public var code: Code
    /// What happened, and what to do about it.
    public var message: String
    /// The five-character SQLSTATE the server reported (`23505` unique violation, `40001` serialization…).
    public var sqlState: String?
    /// The underlying failure, when there is one.
    public var cause: (any Error & Sendable)?
    /// The source file that raised the error.
    public var file: String
    /// The source line that raised the error.
    public var line: Int

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, sqlState: String? = nil, cause: (any Error & Sendable)? = nil,
        file: String = #fileID, line: Int = #line
    ) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
        self.cause = cause
        self.file = file
        self.line = line
    }

    public var description: String {
        sqlState.map { "\(message) (SQLSTATE \($0))" } ?? message
    }

    public static func == (lhs: PostgresError, rhs: PostgresError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
