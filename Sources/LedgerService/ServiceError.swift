import LedgerStore

/// The service layer's error: an opaque code, a message that says what to do, an optional cause.
public struct ServiceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, opaque classification.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let raw: String
        private init(_ raw: String) { self.raw = raw }
        public var description: String { raw }

        /// The log could not be written (disk full, I/O error): nothing was appended; retry later.
        public static let storage = Code("storage")
        /// The data directory is locked by another writer.
        public static let locked = Code("locked")
        /// The data directory belongs to another environment.
        public static let environmentMismatch = Code("environmentMismatch")
        /// The log is damaged before its tail.
        public static let damaged = Code("damaged")
        /// The data was written by a newer format version than this build reads: upgrade the ledger.
        public static let unsupportedVersion = Code("unsupportedVersion")
        /// The input is not what the command takes.
        public static let invalidInput = Code("invalidInput")
        /// What the input names does not exist (an operator's record of a seq or subscription the ledger lacks).
        public static let notFound = Code("notFound")
        /// The input contradicts what the ledger holds (a void of a void, a link that would move an owned
        /// subscription without saying so).
        public static let conflict = Code("conflict")
        /// The configuration (trust roots, flags) is unusable.
        public static let configuration = Code("configuration")
        /// Anything else.
        public static let other = Code("other")
    }

    /// The classification.
    public var code: Code
    /// What happened and what to do.
    public var message: String
    /// The underlying error, as text.
    public var cause: String?
    /// Source file that raised it.
    public var file: String
    /// Source line that raised it.
    public var line: Int

    /// Creates an error.
    public init(_ code: Code, _ message: String, cause: String? = nil, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.cause = cause
        self.file = file
        self.line = line
    }

    /// Wraps a log error, keeping its meaning.
    public init(_ error: LogError, file: String = #fileID, line: Int = #line) {
        let code: Code
        switch error.code {
        case .locked: code = .locked
        case .environmentMismatch: code = .environmentMismatch
        case .appMismatch: code = .configuration
        case .damaged: code = .damaged
        case .unsupportedVersion: code = .unsupportedVersion
        case .noSpace, .io: code = .storage
        case .invalidEntry: code = .invalidInput
        default: code = .other
        }
        self.init(code, error.message, cause: error.description, file: file, line: line)
    }

    public var description: String { message }

    public static func == (lhs: ServiceError, rhs: ServiceError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
