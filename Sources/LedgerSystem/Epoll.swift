import CLinux

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A Linux epoll instance (level-triggered) with its buffer of ready events: `epoll_create1`, `epoll_ctl` and
/// `epoll_wait`, each through ``Syscall/retrying(_:path:_:)``.
///
/// Every descriptor is registered with a caller's tag (a connection's number, say), which ``wait(timeoutMilliseconds:)``
/// reports back with what the descriptor is ready for. Not thread-safe: one thread (an event loop) owns it.
public final class Epoll {
    /// What a descriptor is watched for, or found ready for.
    public struct Events: OptionSet, Sendable {
        public let rawValue: UInt32
        /// Creates events from epoll's bits.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Bytes (or the end of the stream) to read; a listening socket: a connection to accept.
        public static let readable = Events(rawValue: EPOLLIN.rawValue)
        /// Room to write.
        public static let writable = Events(rawValue: EPOLLOUT.rawValue)
        /// The peer closed its sending side (`EPOLLRDHUP`).
        public static let peerClosed = Events(rawValue: EPOLLRDHUP.rawValue)
        /// Both sides closed (`EPOLLHUP`); always reported.
        public static let hangUp = Events(rawValue: EPOLLHUP.rawValue)
        /// An error on the descriptor (`EPOLLERR`); always reported.
        public static let error = Events(rawValue: EPOLLERR.rawValue)
    }

    /// The epoll descriptor.
    public let fd: Int32
    private let ready: UnsafeMutablePointer<epoll_event>
    private let capacity: Int

    /// Creates an epoll instance (close-on-exec) that reports at most `capacity` ready descriptors per wait.
    ///
    /// - Throws: ``SystemError`` when the kernel refuses (out of descriptors or memory).
    public init(capacity: Int = 256) throws(SystemError) {
        fd = try Syscall.retrying("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        self.capacity = max(1, capacity)
        ready = .allocate(capacity: self.capacity)
        ready.initialize(repeating: epoll_event(), count: self.capacity)
    }

    deinit {
        ready.deallocate()
        try? Syscall.closing(fd)
    }

    /// Starts watching `descriptor` for `events`, reported with `tag`.
    public func add(_ descriptor: Int32, events: Events, tag: UInt64) throws(SystemError) {
        try control(EPOLL_CTL_ADD, descriptor, events: events, tag: tag)
    }

    /// Changes what a watched descriptor is watched for.
    public func modify(_ descriptor: Int32, events: Events, tag: UInt64) throws(SystemError) {
        try control(EPOLL_CTL_MOD, descriptor, events: events, tag: tag)
    }

    /// Stops watching `descriptor` (closing a descriptor also stops it).
    public func remove(_ descriptor: Int32) throws(SystemError) {
        try control(EPOLL_CTL_DEL, descriptor, events: [], tag: 0)
    }

    /// Waits up to `timeoutMilliseconds` (-1: forever; 0: not at all) for watched descriptors to be ready; returns
    /// how many are, read with ``event(_:)``. A wait a signal interrupts starts again (with its whole timeout).
    public func wait(timeoutMilliseconds: Int) throws(SystemError) -> Int {
        let timeout = Int32(clamping: timeoutMilliseconds)
        let (ready, capacity) = (self.ready, Int32(self.capacity))
        let count = try Syscall.retrying("epoll_wait") { epoll_wait(fd, ready, capacity, timeout) }
        return Int(count)
    }

    /// The `index`th ready descriptor of the last wait: its tag and what it is ready for.
    public func event(_ index: Int) -> (tag: UInt64, events: Events) {
        let entry = ready[index]
        return (entry.data.u64, Events(rawValue: entry.events))
    }

    private func control(_ operation: Int32, _ descriptor: Int32, events: Events, tag: UInt64) throws(SystemError) {
        var entry = epoll_event()
        entry.events = events.rawValue
        entry.data.u64 = tag
        try Syscall.retrying("epoll_ctl") { epoll_ctl(fd, operation, descriptor, &entry) }
    }
}
