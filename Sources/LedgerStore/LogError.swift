import LedgerSystem

/// The error every operation of the log turns into: an opaque code, a message that says what happened and what
/// to do, an optional cause, and where it was raised. Equality is on the code only, so new codes never break
/// callers.
public struct LogError: Error, Hashable, CustomStringConvertible, Sendable {
    /// A stable, opaque classification of a log failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let raw: String
        private init(_ raw: String) { self.raw = raw }
        public var description: String { raw }

        /// Another process holds the data directory's writer lock.
        public static let locked = Code("locked")
        /// The data directory belongs to another environment.
        public static let environmentMismatch = Code("environmentMismatch")
        /// The data directory belongs to another app (bundle id or App Apple ID).
        public static let appMismatch = Code("appMismatch")
        /// No environment is known yet: the directory has never been written and none was given.
        public static let environmentUnknown = Code("environmentUnknown")
        /// Records before the tail are damaged or altered; the log will not guess.
        public static let damaged = Code("damaged")
        /// The files were written by a newer format version than this program reads.
        public static let unsupportedVersion = Code("unsupportedVersion")
        /// A read, write or sync failed; nothing partial was acknowledged.
        public static let io = Code("io")
        /// The device is full; nothing partial was acknowledged.
        public static let noSpace = Code("noSpace")
        /// An entry is malformed (empty or over-long key, too many subjects, payload too large).
        public static let invalidEntry = Code("invalidEntry")
        /// No record has that sequence number.
        public static let notFound = Code("notFound")
        /// The log was closed, or is a reader and cannot append.
        public static let notWritable = Code("notWritable")
        /// Stored evidence does not match its content address.
        public static let evidenceDamaged = Code("evidenceDamaged")
    }

    /// What kind of failure this is.
    public var code: Code
    /// What happened, and what to do about it.
    public var message: String
    /// The underlying failure, when there is one.
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

    /// An error for a failed system call, classified as ``Code/noSpace`` or ``Code/io``.
    public static func system(
        _ error: SystemError, _ what: String, file: String = #fileID, line: Int = #line
    ) -> LogError {
        let code: Code = error.code == .noSpace ? .noSpace : .io
        let advice = code == .noSpace ? "free some space, then retry" : "check the device, then retry"
        return LogError(code, "\(what): \(error.message); \(advice)", cause: error, file: file, line: line)
    }

    public var description: String { message }

    public static func == (lhs: LogError, rhs: LogError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
