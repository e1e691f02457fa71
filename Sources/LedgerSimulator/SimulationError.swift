/// Why a simulation could not be configured, signed or written.
///
/// Equality is on the code only, so new codes never break callers.
public struct SimulationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, opaque classification.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let raw: String
        private init(_ raw: String) { self.raw = raw }
        /// The code's name.
        public var description: String { raw }

        /// A configuration value is out of range or malformed.
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// The test PKI or a signature could not be made.
        public static let signing = Code("signing")
        /// An output file could not be written.
        public static let io = Code("io")
    }

    /// What kind of failure.
    public var code: Code
    /// What happened and what to do.
    public var message: String
    /// The underlying error, when there is one.
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

    /// The message, with the cause when there is one.
    public var description: String {
        cause.map { "\(message) (\($0))" } ?? message
    }

    /// Errors are equal when their codes are.
    public static func == (lhs: SimulationError, rhs: SimulationError) -> Bool { lhs.code == rhs.code }
    /// Hashes the code only, as equality compares it only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
