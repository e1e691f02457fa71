#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The error every system call in the ledger turns into: an opaque code, the failing call,
/// the errno, a message and where it was raised.
///
/// Equality is on the code only, so new codes never break callers.
public struct SystemError: Error, Hashable, CustomStringConvertible, Sendable {
    /// A stable, opaque classification of a system failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let raw: String
        private init(_ raw: String) { self.raw = raw }
        public var description: String { raw }

        /// The device or file system is full (ENOSPC, EDQUOT).
        public static let noSpace = Code("noSpace")
        /// An I/O error from the device (EIO).
        public static let io = Code("io")
        /// The path does not exist (ENOENT).
        public static let notFound = Code("notFound")
        /// The path already exists (EEXIST).
        public static let alreadyExists = Code("alreadyExists")
        /// Permission denied (EACCES, EPERM).
        public static let permissionDenied = Code("permissionDenied")
        /// The resource is locked or busy (EWOULDBLOCK, EAGAIN, EBUSY).
        public static let wouldBlock = Code("wouldBlock")
        /// The peer closed or reset the connection (EPIPE, ECONNRESET).
        public static let connectionClosed = Code("connectionClosed")
        /// The address is in use (EADDRINUSE).
        public static let addressInUse = Code("addressInUse")
        /// A write wrote fewer bytes than asked and could make no progress.
        public static let shortWrite = Code("shortWrite")
        /// Any other errno.
        public static let other = Code("other")

        /// The code for an errno value.
        public static func from(errno value: Int32) -> Code {
            switch value {
            case ENOSPC, EDQUOT: return .noSpace
            case EIO: return .io
            case ENOENT: return .notFound
            case EEXIST: return .alreadyExists
            case EACCES, EPERM: return .permissionDenied
            case EWOULDBLOCK, EBUSY: return .wouldBlock
            case EPIPE, ECONNRESET: return .connectionClosed
            case EADDRINUSE: return .addressInUse
            default: return .other
            }
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// The system call or operation that failed, e.g. `fdatasync`.
    public var call: String
    /// The errno value, when the failure came from the system.
    public var errno: Int32?
    /// What happened, and what to do about it.
    public var message: String
    /// The source file that raised the error.
    public var file: String
    /// The source line that raised the error.
    public var line: Int

    /// Creates an error.
    public init(
        _ code: Code, call: String, errno: Int32? = nil, message: String,
        file: String = #fileID, line: Int = #line
    ) {
        self.code = code
        self.call = call
        self.errno = errno
        self.message = message
        self.file = file
        self.line = line
    }

    /// An error for a failed call with the given errno.
    public static func fromErrno(
        _ value: Int32, call: String, path: String? = nil, file: String = #fileID, line: Int = #line
    ) -> SystemError {
        let reason = String(cString: strerror(value))
        let subject = path.map { " on \($0)" } ?? ""
        return SystemError(
            .from(errno: value), call: call, errno: value, message: "\(call)\(subject) failed: \(reason)",
            file: file, line: line)
    }

    public var description: String { message }

    public static func == (lhs: SystemError, rhs: SystemError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
