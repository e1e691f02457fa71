#if canImport(Glibc)
    import Glibc
#endif

/// `POLLRDHUP` (Linux): the peer closed its side; Glibc's module does not export it.
private let pollReadHangUp: Int32 = 0x2000

/// A loopback TCP connection for an attacker: non-blocking sends and reads, never waiting on the server.
final class RawConnection {
    private(set) var fd: Int32 = -1

    /// Connects to `127.0.0.1:port`; nil when the connection is refused.
    init?(port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            return nil
        }
        self.fd = fd
    }

    deinit { close() }

    /// Sends what the socket takes now; false when the connection is gone.
    func send(_ bytes: [UInt8]) -> Bool {
        guard fd >= 0 else { return false }
        let sent = bytes.withUnsafeBytes {
            Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
        return sent >= 0 || errno == EAGAIN || errno == EWOULDBLOCK
    }

    /// Reads up to `limit` bytes that are there now; nil when the connection is closed or reset.
    func receive(upTo limit: Int) -> Int? {
        guard fd >= 0 else { return nil }
        var scratch = [UInt8](repeating: 0, count: min(limit, 64 * 1024))
        var total = 0
        while total < limit {
            let count = scratch.withUnsafeMutableBytes {
                recv(fd, $0.baseAddress, min($0.count, limit - total), Int32(MSG_DONTWAIT))
            }
            if count > 0 {
                total += count
                continue
            }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return total }
            return nil
        }
        return total
    }

    /// Whether the server closed or reset the connection (without reading what it sent).
    var isClosed: Bool {
        guard fd >= 0 else { return true }
        var entry = pollfd(fd: fd, events: Int16(pollReadHangUp), revents: 0)
        return poll(&entry, 1, 0) > 0 && entry.revents & Int16(pollReadHangUp | POLLHUP | POLLERR) != 0
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}

/// The largest resident set of process `pid` seen so far, sampled from `/proc/PID/status`.
func residentKiB(of pid: Int32) -> Int? {
    guard let file = fopen("/proc/\(pid)/status", "r") else { return nil }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("VmRSS:") {
            return Int(text.dropFirst(6).filter { $0.isNumber })
        }
    }
    return nil
}
