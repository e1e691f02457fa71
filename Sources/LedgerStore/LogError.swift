import LedgerErrors
import LedgerSystem

/// The error every operation of the log turns into: an opaque code, a message that says what happened and what
/// to do, an optional cause, and where it was raised. Equality is on the code only, so new codes never break
/// callers.
public struct LogError: PlainLedgerError {
    /// A stable, opaque classification of a log failure.
    public typealias Code = ErrorCode<LogError>

    /// The code, message, cause and origin of the error.
    public var detail: ErrorDetail<Code>

    /// Creates an error from its detail.
    public init(detail: ErrorDetail<Code>) { self.detail = detail }

    /// An error for a failed system call, classified as ``Code/noSpace`` or ``Code/io``.
    public static func system(
        _ error: SystemError, _ what: String, file: String = #fileID, line: Int = #line
    ) -> LogError {
        let code: Code = error.code == .noSpace ? .noSpace : .io
        let advice = code == .noSpace ? "free some space, then retry" : "check the device, then retry"
        return LogError(code, "\(what): \(error.message); \(advice)", cause: error, file: file, line: line)
    }
}

extension ErrorCode where Domain == LogError {
    /// Another process holds the data directory's writer lock.
    public static var locked: Self { Self("locked") }
    /// The data directory belongs to another environment.
    public static var environmentMismatch: Self { Self("environmentMismatch") }
    /// The data directory belongs to another app (bundle id or App Apple ID).
    public static var appMismatch: Self { Self("appMismatch") }
    /// No environment is known yet: the directory has never been written and none was given.
    public static var environmentUnknown: Self { Self("environmentUnknown") }
    /// Records before the tail are damaged or altered; the log will not guess.
    public static var damaged: Self { Self("damaged") }
    /// The files were written by a newer format version than this program reads.
    public static var unsupportedVersion: Self { Self("unsupportedVersion") }
    /// A read, write or sync failed; nothing partial was acknowledged.
    public static var io: Self { Self("io") }
    /// The device is full; nothing partial was acknowledged.
    public static var noSpace: Self { Self("noSpace") }
    /// An entry is malformed (empty or over-long key, too many subjects, payload too large).
    public static var invalidEntry: Self { Self("invalidEntry") }
    /// No record has that sequence number.
    public static var notFound: Self { Self("notFound") }
    /// The log was closed, or is a reader and cannot append.
    public static var notWritable: Self { Self("notWritable") }
    /// Stored evidence does not match its content address.
    public static var evidenceDamaged: Self { Self("evidenceDamaged") }
}
