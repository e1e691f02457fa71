import LedgerSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What the event loop, the worker threads and the server's owner share: configuration, responder, the wake-up
/// pipe, the shutdown flag, the send budget and the count of open connections.
final class ServerCore: Sendable {
    let configuration: HTTPServer.Configuration
    let responder: any HTTPResponder
    /// Readable once shutdown begins; never drained, so every poll on it wakes.
    let wakeRead: Int32
    private let wakeWrite: Int32
    private let draining = Atomic<Bool>(false)
    private let open = Atomic<Int>(0)
    /// Response bytes being sent now, across connections (bounded by ``HTTPServer/Configuration/maxBufferedBytes``).
    private let buffered = Atomic<Int>(0)

    init(configuration: HTTPServer.Configuration, responder: any HTTPResponder) throws(SystemError) {
        self.configuration = configuration
        self.responder = responder
        var fds: [Int32] = [0, 0]
        try Syscall.retrying("pipe") { pipe(&fds) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        wakeRead = fds[0]
        wakeWrite = fds[1]
    }

    deinit {
        try? Syscall.closing(wakeRead)
        try? Syscall.closing(wakeWrite)
    }

    /// Whether shutdown has begun: stop accepting, close idle connections, answer with `Connection: close`.
    var isDraining: Bool { draining.load(ordering: .acquiring) }

    /// Begins shutdown and wakes every thread waiting on the wake-up pipe; true the first time.
    @discardableResult
    func beginDraining() -> Bool {
        guard !draining.exchange(true, ordering: .acquiringAndReleasing) else { return false }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        return true
    }

    /// Reserves `count` bytes of the send budget; false when other responses hold so much that this one would
    /// exceed it (a response alone always gets its bytes). Give them back with ``releaseBuffered(_:)``.
    func reserveBuffered(_ count: Int) -> Bool {
        let total = buffered.wrappingAdd(count, ordering: .acquiringAndReleasing).newValue
        if total <= configuration.maxBufferedBytes || total == count { return true }
        buffered.wrappingSubtract(count, ordering: .acquiringAndReleasing)
        return false
    }

    /// Gives back bytes reserved with ``reserveBuffered(_:)``.
    func releaseBuffered(_ count: Int) {
        buffered.wrappingSubtract(count, ordering: .acquiringAndReleasing)
    }

    /// The number of connections being served (those refused at the cap not counted).
    var openConnections: Int { open.load(ordering: .acquiring) }

    /// Notes a connection opened (`1`) or closed (`-1`), for ``openConnections``.
    func countConnection(_ change: Int) {
        open.wrappingAdd(change, ordering: .acquiringAndReleasing)
    }
}
