/// The error the pure domain raises: today only while decoding a binary ``LedgerRecord``.
///
/// An opaque ``Code``, a message saying what happened and what to do, an optional underlying cause and
/// where it was raised. Equality is on the code only, so new codes never break callers.
public struct CoreError: Error, Hashable, CustomStringConvertible, Sendable {
    /// A stable, opaque classification of a domain failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let raw: String
        private init(_ raw: String) { self.raw = raw }

        /// The code's stable name, e.g. `truncated`.
        public var description: String { raw }

        /// The bytes end before the value they announce.
        public static let truncated = Code("truncated")
        /// The bytes are not a valid encoding (bad tag, overlong varint, invalid UTF-8, trailing bytes…).
        public static let malformed = Code("malformed")
        /// The bytes were written by a newer encoding version than this build understands.
        public static let unsupportedVersion = Code("unsupportedVersion")
        /// A length or count exceeds the limit the decoder accepts.
        public static let limitExceeded = Code("limitExceeded")
    }

    /// What kind of failure this is.
    public var code: Code
    /// What happened, and what to do about it.
    public var message: String
    /// The error that caused this one, if any.
    public var cause: (any Error & Sendable)?
    /// The source file that raised the error.
    public var file: String
    /// The source line that raised the error.
    public var line: Int

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, cause: (any Error & Sendable)? = nil, file: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.message = message
        self.cause = cause
        self.file = file
        self.line = line
    }

    /// The message, followed by the cause's description when there is one.
    public var description: String {
        guard let cause else { return message }
        return "\(message) (cause: \(cause))"
    }

    /// Errors are equal when their codes are.
    public static func == (lhs: CoreError, rhs: CoreError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
