import LedgerErrors

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The error every system call in the ledger turns into: an opaque code, the failing call,
/// the errno, a message and where it was raised.
///
/// Equality is on the code only, so new codes never break callers.
public struct SystemError: LedgerError {
    /// A stable, opaque classification of a system failure.
    public typealias Code = ErrorCode<SystemError>

    /// The code, message and origin of the error.
    public var detail: ErrorDetail<Code>
    /// The system call or operation that failed, e.g. `fdatasync`.
    public var call: String
    /// The errno value, when the failure came from the system.
    public var errno: Int32?

    /// Creates an error.
    public init(
        _ code: Code, call: String, errno: Int32? = nil, message: String,
        file: String = #fileID, line: Int = #line
    ) {
        detail = ErrorDetail(code, message, file: file, line: line)
        self.call = call
        self.errno = errno
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
}

extension ErrorCode where Domain == SystemError {
    /// The device or file system is full (ENOSPC, EDQUOT).
    public static var noSpace: Self { Self("noSpace") }
    /// An I/O error from the device (EIO).
    public static var io: Self { Self("io") }
    /// The path does not exist (ENOENT).
    public static var notFound: Self { Self("notFound") }
    /// The path already exists (EEXIST).
    public static var alreadyExists: Self { Self("alreadyExists") }
    /// Permission denied (EACCES, EPERM).
    public static var permissionDenied: Self { Self("permissionDenied") }
    /// The resource is locked or busy (EWOULDBLOCK, EAGAIN, EBUSY).
    public static var wouldBlock: Self { Self("wouldBlock") }
    /// The peer closed or reset the connection (EPIPE, ECONNRESET).
    public static var connectionClosed: Self { Self("connectionClosed") }
    /// The address is in use (EADDRINUSE).
    public static var addressInUse: Self { Self("addressInUse") }
    /// A write wrote fewer bytes than asked and could make no progress.
    public static var shortWrite: Self { Self("shortWrite") }
    /// Any other errno.
    public static var other: Self { Self("other") }

    /// The code for an errno value.
    public static func from(errno value: Int32) -> Self {
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
