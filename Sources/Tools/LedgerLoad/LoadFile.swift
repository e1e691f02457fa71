import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a whole file (a request body to replay).
func readFile(_ path: String) throws(LoadError) -> [UInt8] {
    guard let bytes = try? PosixFileSystem().readFile(path) else { throw LoadError("cannot open \(path)") }
    return bytes
}

/// The non-blank lines of a JSON Lines file, each a request body.
func readLines(_ path: String) throws(LoadError) -> [[UInt8]] {
    try readFile(path).split(separator: 10, omittingEmptySubsequences: true).map { Array($0) }
        .filter { !$0.allSatisfy { $0 == 32 || $0 == 13 } }
}

/// Appends acknowledgement lines with one `write(2)` each (`O_APPEND`), so threads never interleave.
final class AckLog: Sendable {
    private let fd: Int32

    init(path: String) throws(LoadError) {
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw LoadError("cannot open \(path) (errno \(errno))") }
    }

    deinit { close(fd) }

    /// Records a 200 for body `line`, with the `"seq":N` its response named.
    func acknowledge(line: Int, response: [UInt8]) {
        guard let seq = Self.seq(in: response) else { return }
        let bytes = Array("ack \(line) \(seq)\n".utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// The number after `"seq":` in a JSON response body.
    static func seq(in body: [UInt8]) -> UInt64? {
        let key = Array(#""seq":"#.utf8)
        guard body.count > key.count else { return nil }
        for start in 0...(body.count - key.count) where body[start..<(start + key.count)].elementsEqual(key) {
            let digits = body[(start + key.count)...].prefix { $0 >= 48 && $0 <= 57 }
            return UInt64(String(decoding: digits, as: UTF8.self))
        }
        return nil
    }
}
