import LedgerJSON
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One JSON line per request, written as the response is sent:
///
/// `{"time":"2026-03-01T00:00:00.123Z","remote":"127.0.0.1:51234","method":"GET","path":"/healthz",`
/// `"route":"/healthz","status":200,"bytesIn":78,"bytesOut":112,"ms":0.41}`
///
/// Requests refused before routing (malformed, too large, too slow) are logged too, with `route` null and
/// whatever of method and path was read. Each line goes out in one `write`, so lines from concurrent
/// connections never interleave.
public final class AccessLog: Sendable {
    /// What the log knows about one answered request.
    public struct Entry: Sendable {
        /// The peer as `host:port`.
        public var remote: String
        /// The method, when the request line was read.
        public var method: String?
        /// The path (without the query, which may carry personal data), when read.
        public var path: String?
        /// The route pattern that answered, or nil.
        public var route: String?
        /// The status sent.
        public var status: Int
        /// Bytes received for this request (head and body).
        public var bytesIn: Int
        /// Bytes sent for the response.
        public var bytesOut: Int
        /// Milliseconds from the request's first byte to the response sent.
        public var milliseconds: Double
    }

    private let sink: @Sendable (String) -> Void
    private let flushSink: @Sendable () -> Void

    /// A log that hands each line (with its newline) to `write`; `flush` runs at shutdown.
    public init(write: @escaping @Sendable (String) -> Void, flush: @escaping @Sendable () -> Void = {}) {
        sink = write
        flushSink = flush
    }

    /// A log written to a file descriptor (1 for standard output, 2 for standard error).
    public convenience init(fileDescriptor fd: Int32) {
        let lock = Mutex(())
        self.init(
            write: { line in
                lock.withLock { _ in
                    var bytes = Array(line.utf8)
                    var offset = 0
                    while offset < bytes.count {
                        let written = bytes.withUnsafeMutableBytes { raw in
                            Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                        }
                        if written < 0 && errno == EINTR { continue }
                        if written <= 0 { return }
                        offset += written
                    }
                    bytes.removeAll()
                }
            }, flush: { _ = fsync(fd) })
    }

    /// Writes the line for `entry`.
    public func record(_ entry: Entry) {
        var line = "{\"time\":\"\(HTTPDate.iso8601Now())\",\"remote\":"
        line += JSONValue.quoted(entry.remote)
        line += ",\"method\":"
        Self.appendOptional(entry.method, to: &line)
        line += ",\"path\":"
        Self.appendOptional(entry.path, to: &line)
        line += ",\"route\":"
        Self.appendOptional(entry.route, to: &line)
        let milliseconds = (entry.milliseconds * 1000).rounded() / 1000
        line += ",\"status\":\(entry.status),\"bytesIn\":\(entry.bytesIn),\"bytesOut\":\(entry.bytesOut)"
        line += ",\"ms\":\(milliseconds)}\n"
        sink(line)
    }

    /// Flushes whatever the sink buffers; the server calls it once at shutdown.
    public func flush() { flushSink() }

    private static func appendOptional(_ value: String?, to line: inout String) {
        if let value { line += JSONValue.quoted(value) } else { line += "null" }
    }
}
