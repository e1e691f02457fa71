import LedgerErrors
import LedgerStore

/// The service layer's error: an opaque code, a message that says what to do, an optional cause.
public struct ServiceError: LedgerError {
    /// A stable, opaque classification.
    public typealias Code = ErrorCode<ServiceError>

    /// The code, message and origin of the error.
    public var detail: ErrorDetail<Code>
    /// The underlying error, as text.
    public var cause: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, cause: String? = nil, file: String = #fileID, line: Int = #line) {
        detail = ErrorDetail(code, message, file: file, line: line)
        self.cause = cause
    }

    /// Wraps a log error, keeping its meaning.
    public init(_ error: LogError, file: String = #fileID, line: Int = #line) {
        let code: Code
        switch error.code {
        case .locked: code = .locked
        case .environmentMismatch: code = .environmentMismatch
        case .appMismatch, .environmentUnknown: code = .configuration
        case .damaged, .evidenceDamaged: code = .damaged
        case .notFound: code = .notFound
        case .unsupportedVersion: code = .unsupportedVersion
        case .noSpace, .io: code = .storage
        case .invalidEntry: code = .invalidInput
        default: code = .other
        }
        self.init(code, error.message, cause: error.description, file: file, line: line)
    }
}

extension ErrorCode where Domain == ServiceError {
    /// The log could not be written (disk full, I/O error): nothing was appended; retry later.
    public static var storage: Self { Self("storage") }
    /// The data directory is locked by another writer.
    public static var locked: Self { Self("locked") }
    /// The data directory belongs to another environment.
    public static var environmentMismatch: Self { Self("environmentMismatch") }
    /// The log is damaged before its tail.
    public static var damaged: Self { Self("damaged") }
    /// The data was written by a newer format version than this build reads: upgrade the ledger.
    public static var unsupportedVersion: Self { Self("unsupportedVersion") }
    /// The input is not what the command takes.
    public static var invalidInput: Self { Self("invalidInput") }
    /// What the input names does not exist (an operator's record of a seq or subscription the ledger lacks).
    public static var notFound: Self { Self("notFound") }
    /// The input contradicts what the ledger holds (a void of a void, a link that would move an owned
    /// subscription without saying so).
    public static var conflict: Self { Self("conflict") }
    /// The configuration (trust roots, flags) is unusable.
    public static var configuration: Self { Self("configuration") }
    /// Anything else.
    public static var other: Self { Self("other") }
}
