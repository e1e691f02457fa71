import LedgerAppStore
import LedgerCore
import LedgerCrypto
import LedgerJSON
import LedgerSystem
import Synchronization

/// Rejected payloads, kept with their reason in the data directory (`quarantine/rejected.jsonl`), never
/// in the log. Bounded: when the file passes ``maxBytes`` it becomes `rejected.1.jsonl` (replacing the
/// previous one) and a new file starts, so the quarantine never holds more than twice the limit.
public final class Quarantine: Sendable {
    /// One rejected payload.
    public struct Item: Sendable, Hashable {
        /// When it was rejected.
        public var at: Instant
        /// Apple's status name (`VERIFICATION_FAILURE`, …) or the ledger's reason code.
        public var status: String
        /// Why, in words.
        public var message: String
        /// SHA-256 of the body, hex.
        public var sha256: String
        /// The body as received (bodies over ``maxBodyBytes`` are cut; ``size`` keeps the full size), as text;
        /// bytes that are not UTF-8 show as U+FFFD here and are kept exactly in ``bodyBase64``.
        public var body: String
        /// The kept bytes in base64, when they are not valid UTF-8 (else nil: ``body`` is exact).
        public var bodyBase64: String?
        /// The body's full size in bytes.
        public var size: Int
    }

    /// The largest body kept whole.
    public static let maxBodyBytes = 1 << 20
    /// The size at which the file rotates.
    public let maxBytes: Int
    let directory: String
    let fileSystem: any FileSystem
    /// Held while a line is appended: concurrent webhook connections reject at once, and each append reads the
    /// file's end, writes there and may rotate; unserialised, two appends land at the same offset and tear lines.
    private let appending = Mutex(())

    /// A quarantine in `dataDirectory/quarantine`.
    public init(dataDirectory: String, fileSystem: any FileSystem = PosixFileSystem(), maxBytes: Int = 64 << 20) {
        self.directory = Path.join(dataDirectory, "quarantine")
        self.fileSystem = fileSystem
        self.maxBytes = maxBytes
    }

    var current: String { Path.join(directory, "rejected.jsonl") }
    var previous: String { Path.join(directory, "rejected.1.jsonl") }

    /// Keeps a rejected body with its reason, durably.
    public func keep(body: [UInt8], status: String, message: String, at: Instant) throws(ServiceError) {
        try keep(
            prefix: Array(body.prefix(Self.maxBodyBytes)), size: body.count, sha256: SHA256.hash(body), status: status,
            message: message, at: at)
    }

    /// Keeps a rejected body that was not held whole (too large to read), durably: its first bytes (at most
    /// ``maxBodyBytes`` are kept), its full size and the SHA-256 of all of it.
    public func keep(prefix: [UInt8], size: Int, sha256: [UInt8], status: String, message: String, at: Instant)
        throws(ServiceError)
    {
        let cut = prefix.count > Self.maxBodyBytes ? prefix[..<Self.maxBodyBytes] : prefix[...]
        var fields: JSONObject = [
            "at": .string(at.iso8601), "status": .string(status), "message": .string(message),
            "sha256": .string(Hex.encode(sha256)), "size": .int(size),
            "body": .string(String(decoding: cut, as: UTF8.self)),
        ]
        // Text that is not UTF-8 would be kept with replacement characters: keep its bytes too.
        if String(validating: cut, as: UTF8.self) == nil { fields["bodyBase64"] = .string(Base64.encode(cut)) }
        let line: JSONValue = .object(fields)
        var bytes = line.serializedBytes()
        bytes.append(0x0A)
        try appending.withLock { (_) throws(ServiceError) -> Void in
            do throws(SystemError) {
                try fileSystem.createDirectories(directory)
                if let status = try fileSystem.stat(current), status.size + Int64(bytes.count) > Int64(maxBytes) {
                    try fileSystem.rename(current, to: previous)
                    try fileSystem.fsyncDirectory(directory)
                }
                let fd = try fileSystem.open(current, OpenOptions(access: .writeOnly, create: true))
                defer { try? fileSystem.close(fd) }
                let end = try fileSystem.fstat(fd).size
                try fileSystem.writeAll(fd, bytes, at: end)
                try fileSystem.fsync(fd)
                if end == 0 { try fileSystem.fsyncDirectory(directory) }
            } catch {
                throw ServiceError(.storage, "cannot write the quarantine in \(directory): \(error.message)")
            }
        }
    }

    /// Every kept item, oldest first.
    public func items() throws(ServiceError) -> [Item] { try read().items }

    /// Every kept item, oldest first, and how many lines could not be read (a torn last line after a crash, or
    /// a line damaged on disk).
    public func read() throws(ServiceError) -> (items: [Item], unreadable: Int) {
        var items: [Item] = []
        var unreadable = 0
        for path in [previous, current] {
            let bytes: [UInt8]?
            do {
                bytes = try fileSystem.readFile(path)
            } catch {
                throw ServiceError(.storage, "cannot read \(path): \(error.message)")
            }
            guard let bytes else { continue }
            for line in bytes.split(separator: 0x0A) {
                guard let json = try? JSONValue.parse(Array(line)),
                    let at = json["at"]?.string.flatMap(Instant.init(parsing:))
                else {
                    unreadable += 1
                    continue
                }
                items.append(
                    Item(
                        at: at, status: json["status"]?.string ?? "", message: json["message"]?.string ?? "",
                        sha256: json["sha256"]?.string ?? "", body: json["body"]?.string ?? "",
                        bodyBase64: json["bodyBase64"]?.string, size: Int(json["size"]?.int64 ?? 0)))
            }
        }
        return (items, unreadable)
    }
}
