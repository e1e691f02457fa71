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
        try Self.run([(self, listener)], announce: announce)
    }

    /// Runs several servers together (e.g. the webhook and the read API on separate addresses, each with its own
    /// connections and threads): starts them all, announces each, serves until SIGTERM or SIGINT (or until one of
    /// them is shut down from another thread), then shuts them all down gracefully, their drains overlapping.
    ///
    /// Each server is announced `listening on http://HOST:PORT`, in the order given, once all are bound (the
    /// contract's line, whatever the number of servers). When one cannot start, those started already are stopped
    /// and the error is thrown.
    public static func run(
        _ servers: [(server: HTTPServer, listener: HTTPListener?)],
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
        var ports: [UInt16] = []
        for (server, listener) in servers {
            do throws(SystemError) {
                ports.append(try server.start(listener: listener))
            } catch {
                for started in servers.prefix(ports.count) { started.server.shutdown(graceful: false) }
                throw error
            }
        }
        for ((server, _), port) in zip(servers, ports) {
            let host =
                server.configuration.host.contains(":") ? "[\(server.configuration.host)]" : server.configuration.host
            announce("listening on http://\(host):\(port)")
        }
        var waits = [pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)]
        waits += servers.map { pollfd(fd: $0.server.core.wakeRead, events: Int16(POLLIN), revents: 0) }
        let count = nfds_t(waits.count)
        while true {
            let ready = (try? Syscall.retrying("poll") { poll(&waits, count, -1) }) ?? 0
            if ready > 0 { break }
        }
        for (server, _) in servers { server.beginShutdown() }
        for (server, _) in servers { server.shutdown(graceful: true) }
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
