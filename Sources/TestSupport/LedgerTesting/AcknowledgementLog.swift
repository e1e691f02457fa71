import LedgerSystem
import Synchronization

/// One acknowledgement of an HTTP durability check: the body on line `line` was answered 200 as record `seq`.
public struct Acknowledgement: Sendable, Hashable {
    /// The body's line in the notifications file (from 0).
    public var line: Int
    /// The seq the 200 named.
    public var seq: UInt64
}

/// The acknowledgements file of the HTTP durability checks (`Scripts/crash-test --http`, `Scripts/load --real` and
/// `--hostile`): one line `ack LINE SEQ` per 200, written after the 200 arrived, read back by the checker.
///
/// Lines from several threads never interleave (one write each, under a lock, at the file's end), so a SIGKILL of
/// the writer can at worst cut the very last line, which ``read(_:)`` drops.
public final class AcknowledgementLog: Sendable {
    private let fileSystem = PosixFileSystem()
    private let fd: FileDescriptor
    private let end: Mutex<Int64>

    /// Opens `path` for appending, creating it when missing.
    public init(path: String) throws(SystemError) {
        fd = try fileSystem.open(path, .createReadWrite)
        do {
            end = Mutex(try fileSystem.fstat(fd).size)
        } catch {
            try? fileSystem.close(fd)
            throw error
        }
    }

    deinit { try? fileSystem.close(fd) }

    /// Records that the body on `line` was answered 200 as `seq`. A failed write is dropped: the check then finds
    /// one acknowledgement fewer, never a false one.
    public func acknowledge(line: Int, seq: UInt64) {
        let bytes = Array("ack \(line) \(seq)\n".utf8)
        end.withLock { end in
            guard (try? fileSystem.writeAll(fd, bytes, at: end)) != nil else { return }
            end += Int64(bytes.count)
        }
    }

    /// Every complete `ack` line of `path` (a last line without its newline was cut and is ignored); a missing
    /// file has none.
    public static func read(_ path: String) throws(SystemError) -> [Acknowledgement] {
        let bytes = try PosixFileSystem().readFile(path) ?? []
        var lines = bytes.split(separator: 10, omittingEmptySubsequences: true)
        if bytes.last != 10, !lines.isEmpty { lines.removeLast() }
        return lines.compactMap { line -> Acknowledgement? in
            let parts = line.split(separator: 32)
            guard parts.count == 3, parts[0].elementsEqual("ack".utf8),
                let index = Int(String(decoding: parts[1], as: UTF8.self)),
                let seq = UInt64(String(decoding: parts[2], as: UTF8.self))
            else { return nil }
            return Acknowledgement(line: index, seq: seq)
        }
    }
}
