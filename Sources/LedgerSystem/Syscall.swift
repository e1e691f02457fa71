#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The one funnel every system call goes through.
///
/// It retries calls interrupted by a signal (EINTR) and turns a failure into a typed ``SystemError``.
/// `close` must not go through ``retrying(_:path:_:)``: on Linux a close interrupted by a signal has
/// already released the descriptor, so use ``closing(_:)``.
public enum Syscall {
    /// Runs a call that returns -1 and sets errno on failure, retrying EINTR.
    @discardableResult
    @inline(__always)
    public static func retrying<T: FixedWidthInteger>(
        _ call: String, path: String? = nil, _ body: () -> T
    ) throws(SystemError) -> T {
        while true {
            let result = body()
            if result != -1 { return result }
            let value = Glibc.errno
            if value == EINTR { continue }
            throw SystemError.fromErrno(value, call: call, path: path)
        }
    }

    /// Closes a descriptor exactly once. EINTR is not retried (the descriptor is already gone).
    public static func closing(_ fd: Int32) throws(SystemError) {
        if Glibc.close(fd) == -1 {
            let value = Glibc.errno
            if value == EINTR { return }
            throw SystemError.fromErrno(value, call: "close")
        }
    }
}
