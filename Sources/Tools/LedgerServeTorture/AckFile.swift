import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Acknowledgements: one line `ack LINE SEQ` per 200 the server sent, written after the 200 arrived.
///
/// Each line goes out with a single `write(2)` on an `O_APPEND` descriptor, so lines from several threads
/// never interleave, and a SIGKILL of the writer can at worst cut the very last line (the reader drops it).
final class AckWriter: Sendable {
    private let fd: Int32

    init(path: String) throws(TortureError) {
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw TortureError("cannot open \(path) for acknowledgements (errno \(errno))") }
    }

    deinit { close(fd) }

    /// Records that the body on `line` was answered 200 with `seq`.
    func acknowledge(line: Int, seq: Int64) {
        let bytes = Array("ack \(line) \(seq)\n".utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}

/// One acknowledgement read back.
struct Ack: Sendable, Hashable {
    var line: Int
    var seq: UInt64
}

enum AckFile {
    /// Reads every complete `ack` line (a last line without its newline was cut and is ignored).
    static func read(_ path: String) throws(TortureError) -> [Ack] {
        let bytes: [UInt8]
        do {
            bytes = try PosixFileSystem().readFile(path) ?? []
        } catch {
            throw TortureError("cannot read \(path): \(error.message)")
        }
        var lines = bytes.split(separator: 10, omittingEmptySubsequences: true)
        if bytes.last != 10, !lines.isEmpty { lines.removeLast() }
        return lines.compactMap { line -> Ack? in
            let parts = line.split(separator: 32)
            guard parts.count == 3, parts[0].elementsEqual("ack".utf8),
                let index = Int(String(decoding: parts[1], as: UTF8.self)),
                let seq = UInt64(String(decoding: parts[2], as: UTF8.self))
            else { return nil }
            return Ack(line: index, seq: seq)
        }
    }
}
