import LedgerSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The socket system calls the server and client use, each through ``Syscall/retrying(_:path:_:)``.
///
/// Sockets are blocking; waits with deadlines go through ``waitReadable(_:also:timeoutMilliseconds:)``
/// (poll). Sends use `MSG_NOSIGNAL`, so a peer that went away is an error, never a SIGPIPE.
enum Socket {
    /// Opens a listening TCP socket on `host:port` (port 0 picks a free one) and returns it with the bound port.
    static func listen(host: String, port: UInt16, backlog: Int32) throws(SystemError) -> (fd: Int32, port: UInt16) {
        let address = try resolve(host: host, port: port, passive: true)
        let fd = try Syscall.retrying("socket") {
            socket(Int32(address.family), Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        do {
            try setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            _ = try address.withPointer { pointer, length throws(SystemError) in
                try Syscall.retrying("bind", path: "\(host):\(port)") { bind(fd, pointer, length) }
            }
            try Syscall.retrying("listen") { Glibc.listen(fd, backlog) }
            return (fd, try localPort(fd))
        } catch {
            try? Syscall.closing(fd)
            throw error
        }
    }

    /// Connects a TCP socket to `host:port`, with Nagle's algorithm off.
    static func connect(host: String, port: UInt16) throws(SystemError) -> Int32 {
        let address = try resolve(host: host, port: port, passive: false)
        let fd = try Syscall.retrying("socket") {
            socket(Int32(address.family), Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        do {
            _ = try address.withPointer { pointer, length throws(SystemError) in
                try Syscall.retrying("connect", path: "\(host):\(port)") { Glibc.connect(fd, pointer, length) }
            }
            try setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
            return fd
        } catch {
            try? Syscall.closing(fd)
            throw error
        }
    }

    /// Accepts one connection; returns its descriptor and the peer as `host:port`.
    static func accept(_ listener: Int32) throws(SystemError) -> (fd: Int32, peer: String) {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = try withUnsafeMutablePointer(to: &storage) { pointer throws(SystemError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(SystemError) in
                try Syscall.retrying("accept") { Glibc.accept(listener, address, &length) }
            }
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        try? setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        return (fd, describe(&storage, length: length))
    }

    /// Sends every byte, looping on short sends. A send blocked past the socket's send timeout fails.
    ///
    /// With a `deadline` (monotonic milliseconds), sends do not block: the socket is polled for room until the
    /// deadline, and every byte not sent by then fails the send (a client that reads too slowly is cut off, however
    /// it paces its reads). `flags` are added to `MSG_NOSIGNAL` (e.g. `MSG_MORE` before a body).
    static func sendAll(
        _ fd: Int32, _ bytes: UnsafeRawBufferPointer, flags: Int32 = 0, deadline: Int = .max
    ) throws(SystemError) {
        let blocking = deadline == .max
        let options = Int32(MSG_NOSIGNAL) | flags | (blocking ? 0 : Int32(MSG_DONTWAIT))
        var offset = 0
        while offset < bytes.count {
            let sent = send(fd, bytes.baseAddress! + offset, bytes.count - offset, options)
            if sent > 0 {
                offset += sent
                continue
            }
            let value = errno
            if sent < 0 && value == EINTR { continue }
            if sent < 0 && !blocking && (value == EAGAIN || value == EWOULDBLOCK) {
                try waitWritable(fd, deadline: deadline)
                continue
            }
            if sent == 0 {
                throw SystemError(.shortWrite, call: "send", message: "send made no progress; the peer stopped reading")
            }
            throw SystemError.fromErrno(value, call: "send")
        }
    }

    /// Sends every byte of `bytes`, as the variant on a raw buffer does.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8], flags: Int32 = 0, deadline: Int = .max) throws(SystemError) {
        let failure: SystemError? = bytes.withUnsafeBytes { raw in
            do throws(SystemError) {
                try sendAll(fd, raw, flags: flags, deadline: deadline)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Waits until `fd` has room to send, up to `deadline` (monotonic milliseconds); throws once it has passed.
    static func waitWritable(_ fd: Int32, deadline: Int) throws(SystemError) {
        while true {
            let remaining = deadline - SystemClock.monotonicMilliseconds()
            guard remaining > 0 else {
                throw SystemError(
                    .shortWrite, call: "send", message: "the client did not take the response before its deadline")
            }
            var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = try Syscall.retrying("poll") { poll(&entry, 1, Int32(clamping: remaining)) }
            if ready > 0 { return }
        }
    }

    /// Receives up to `buffer.count` bytes; 0 means the peer closed its side.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        try Syscall.retrying("recv") { recv(fd, buffer.baseAddress, buffer.count, 0) }
    }

    /// What a wait for input found.
    enum Readiness {
        /// The socket has bytes (or EOF, or an error) to read.
        case readable
        /// The other descriptor (a wake-up pipe) became readable first.
        case woken
        /// The timeout passed.
        case timedOut
    }

    /// Waits until `fd` (or `also`, when given) is readable, for at most `timeoutMilliseconds` (-1: forever).
    static func waitReadable(_ fd: Int32, also: Int32? = nil, timeoutMilliseconds: Int) throws(SystemError) -> Readiness
    {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        if let also { fds.append(pollfd(fd: also, events: Int16(POLLIN), revents: 0)) }
        let timeout = Int32(clamping: timeoutMilliseconds)
        let count = nfds_t(fds.count)
        let ready = try Syscall.retrying("poll") { poll(&fds, count, timeout) }
        if ready == 0 { return .timedOut }
        if fds[0].revents != 0 { return .readable }
        return .woken
    }

    /// Sets an integer socket option.
    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) throws(SystemError) {
        var value = value
        try Syscall.retrying("setsockopt") {
            setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// Makes the coming close of `fd` abortive (a reset, `SO_LINGER` 0): what the kernel still holds for a client
    /// that would not read is dropped at once instead of waiting on it.
    static func resetOnClose(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Makes blocking sends on `fd` fail after `milliseconds` without progress.
    static func setSendTimeout(_ fd: Int32, milliseconds: Int) throws(SystemError) {
        var time = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        try Syscall.retrying("setsockopt") {
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    /// Makes blocking receives on `fd` fail after `milliseconds` without data.
    static func setReceiveTimeout(_ fd: Int32, milliseconds: Int) throws(SystemError) {
        var time = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        try Syscall.retrying("setsockopt") {
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    /// The local port a socket is bound to.
    static func localPort(_ fd: Int32) throws(SystemError) -> UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try withUnsafeMutablePointer(to: &storage) { pointer throws(SystemError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(SystemError) in
                try Syscall.retrying("getsockname") { getsockname(fd, address, &length) }
            }
        }
        let family = storage.ss_family
        return withUnsafePointer(to: &storage) { pointer in
            if family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin6_port)
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                UInt16(bigEndian: $0.pointee.sin_port)
            }
        }
    }
}
