import LedgerSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The write end of the self-pipe the signal handler writes to; set only while ``HTTPServer/run(listener:announce:)``
/// runs. Only read by the handler, which does nothing else.
nonisolated(unsafe) private var signalPipeWrite: Int32 = -1

/// The SIGTERM/SIGINT handler: writes the signal number to the self-pipe, preserving errno. Nothing else
/// happens in signal context.
private func handleTerminationSignal(_ signal: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: signal)
    _ = write(signalPipeWrite, &byte, 1)
    errno = saved
}

extension HTTPServer {
    /// Starts the server, announces it, serves until SIGTERM or SIGINT (or ``shutdown(graceful:)`` from
    /// another thread), then shuts down gracefully and returns; the caller then exits 0.
    ///
    /// Signals reach a self-pipe (the handler only writes one byte); the waiting thread does the work.
    /// Only one server may `run` at a time in a process.
    ///
    /// - Parameters:
    ///   - listener: a socket bound already (``HTTPListener``), used instead of binding the configuration's host
    ///     and port.
    ///   - announce: receives `listening on http://HOST:PORT` once the socket is bound; by default it is written
    ///     to standard output at once (unbuffered).
    public func run(
        listener: HTTPListener? = nil,
        announce: (String) -> Void = { line in HTTPServer.writeStandardOutput(line + "\n") }
    ) throws(SystemError) {
        var fds: [Int32] = [0, 0]
        try Syscall.retrying("pipe") { pipe(&fds) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        signalPipeWrite = fds[1]
        // A blocked signal stays blocked across exec: a parent that blocks SIGTERM in the thread that starts us (a
        // test runner's threads do) would leave the server deaf to it. Unblocked in this thread before the server's
        // threads start, which inherit its mask.
        var termination = sigset_t()
        sigemptyset(&termination)
        sigaddset(&termination, SIGTERM)
        sigaddset(&termination, SIGINT)
        var previousMask = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &termination, &previousMask)
        let previousTerm = signal(SIGTERM, handleTerminationSignal)
        let previousInt = signal(SIGINT, handleTerminationSignal)
        defer {
            signal(SIGTERM, previousTerm)
            signal(SIGINT, previousInt)
            pthread_sigmask(SIG_SETMASK, &previousMask, nil)
            signalPipeWrite = -1
            try? Syscall.closing(fds[0])
            try? Syscall.closing(fds[1])
        }
        let port = try start(listener: listener)
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        announce("listening on http://\(host):\(port)")
        while true {
            let readiness = try? Socket.waitReadable(fds[0], also: core.wakeRead, timeoutMilliseconds: -1)
            if readiness == .readable || readiness == .woken { break }
        }
        shutdown(graceful: true)
    }

    /// Writes `text` to standard output with `write(2)`, bypassing stdio buffering.
    public static func writeStandardOutput(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { write(1, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
        bytes.removeAll()
    }
}
