import LedgerSystem
import Synchronization

/// A listening socket bound before the server that accepts on it exists.
///
/// A program can claim its address first and only then open what its handlers need: `ledger serve` binds
/// before it opens (or creates) the data directory, so a busy port leaves nothing behind. Hand it to
/// ``HTTPServer/start(listener:)`` or ``HTTPServer/run(listener:announce:)``; the server then owns the socket.
/// A listener no server took is closed when it is released.
public final class HTTPListener: Sendable {
    /// The bound port (the ephemeral one when 0 was asked for).
    public let port: UInt16
    /// The socket, until a server takes it.
    private let socket: Mutex<Int32?>

    /// Binds `host:port` (port 0 picks a free one) and listens.
    ///
    /// - Throws: ``LedgerSystem/SystemError`` when the address cannot be resolved or bound (e.g. `addressInUse`).
    public init(host: String, port: UInt16, backlog: Int32 = 1024) throws(SystemError) {
        let (fd, bound) = try Socket.listen(host: host, port: port, backlog: backlog)
        self.port = bound
        self.socket = Mutex(fd)
    }

    deinit {
        if let fd = socket.withLock({ $0 }) { try? Syscall.closing(fd) }
    }

    /// The socket, handed over once: nil when a server took it already.
    func take() -> Int32? {
        socket.withLock { socket in
            defer { socket = nil }
            return socket
        }
    }
}
