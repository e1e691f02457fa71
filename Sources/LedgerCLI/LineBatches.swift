import LedgerCrypto
import LedgerService
import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The non-blank lines of a JSON Lines input (a file, or `-` for standard input), in batches, read as they
/// are consumed: the input is never held whole, so its size has no limit and memory stays at about one chunk
/// plus one batch.
///
/// A line longer than ``lineLimit`` is not delivered: it is read through without being held (its first
/// ``keptBytes``, its size and its SHA-256 are kept) and set aside in ``takeOversized()``, and the lines after
/// it follow. A `Sequence` cannot throw, so a read failure ends the sequence and is kept in ``failure``: check
/// it once the sequence is consumed. Lines before the failure were delivered.
final class LineBatches: Sequence, IteratorProtocol {
    /// Bytes read from the input with one `read`, by default.
    static let defaultChunkBytes = 8 << 20

    /// A line over the limit, read through but not held.
    struct Oversized {
        /// Its line number in the input (counting blank lines).
        var number: Int
        /// Its length in bytes, without the newline.
        var size: Int
        /// The SHA-256 of the whole line.
        var sha256: [UInt8]
        /// Its first bytes (at most ``LineBatches/keptBytes``).
        var prefix: [UInt8]
        /// Why it was not read: the input, the line and the limit.
        var reason: String
    }

    /// The input as the user named it.
    let path: String
    /// Lines per batch.
    let batchSize: Int
    /// The longest line delivered, in bytes; a longer one is set aside (``takeOversized()``).
    let lineLimit: Int
    /// How many of an over-long line's first bytes are kept.
    let keptBytes: Int
    /// The input's size when it is a regular file (for progress), else nil.
    private(set) var totalBytes: Int64?
    /// Bytes of the input consumed so far: the lines delivered or set aside, and their newlines.
    private(set) var consumedBytes: Int64 = 0
    /// Why the input ended early, if it did.
    private(set) var failure: CLIError?
    /// The over-long lines read through since ``takeOversized()`` was last called.
    private var oversized: [Oversized] = []

    private let fd: Int32
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var atEnd = false
    private var lineNumber = 0

    /// Opens the input; `chunkBytes` is how much one `read` asks for (the buffer grows for longer lines, up to
    /// `lineLimit + 1` bytes); `keptBytes` how much of an over-long line is kept (as the quarantine keeps of a
    /// body, by default).
    /// - Throws: ``CLIError`` failure when the file cannot be opened.
    init(
        path: String, batchSize: Int, lineLimit: Int, chunkBytes: Int = defaultChunkBytes,
        keptBytes: Int = Quarantine.maxBodyBytes
    ) throws(CLIError) {
        self.path = path
        self.batchSize = batchSize
        self.lineLimit = lineLimit
        self.keptBytes = keptBytes
        fd = try InputFile.open(path)
        buffer = [UInt8](repeating: 0, count: Swift.max(1, chunkBytes))
        totalBytes = Self.regularFileSize(fd, path: path)
    }

    deinit {
        if fd != 0 { try? Syscall.closing(fd) }
    }

    /// The next batch of non-blank lines, each its own array; nil at the end of the input or after a failure.
    func next() -> [[UInt8]]? {
        var batch: [[UInt8]] = []
        batch.reserveCapacity(batchSize)
        while batch.count < batchSize, var line = nextLine() {
            // The byte order mark some editors put at the start of a UTF-8 file is not part of its first line.
            if lineNumber == 1, buffer[line].starts(with: [0xEF, 0xBB, 0xBF]) {
                line = (line.lowerBound + 3)..<line.upperBound
            }
            if !Self.isBlank(buffer[line]) { batch.append(Array(buffer[line])) }
        }
        return batch.isEmpty ? nil : batch
    }

    /// Where the next line is in the buffer (without its newline; valid until the next call), or nil.
    private func nextLine() -> Range<Int>? {
        while true {
            let found = buffer.withUnsafeBytes { raw in
                memchr(raw.baseAddress! + start, 0x0A, end - start).map { raw.baseAddress!.distance(to: $0) }
            }
            let lineEnd = found ?? end
            guard lineEnd - start <= lineLimit else {
                skipOversizedLine()
                continue
            }
            if found != nil { return take(upTo: lineEnd, consuming: 1) }
            if atEnd { return start < end ? take(upTo: end, consuming: 0) : nil }
            fill()
        }
    }

    /// The size of the read buffer (for tests: it grows for a long line up to the limit, not for a longer one).
    var bufferBytes: Int { buffer.count }

    /// The over-long lines read through since the last call, in input order.
    func takeOversized() -> [Oversized] {
        defer { oversized.removeAll() }
        return oversized
    }

    /// Reads through the line at `start`, longer than ``lineLimit``: keeps its first ``keptBytes``, hashes and
    /// counts it a buffer at a time (the buffer does not grow), and sets it aside. A read failure on the way
    /// ends the input as any read failure does, and the line is not set aside.
    private func skipOversizedLine() {
        lineNumber += 1
        let number = lineNumber
        // At least `lineLimit + 1` bytes of the line are in the buffer, none of them a newline.
        let prefix = Array(buffer[start..<(start + Swift.min(keptBytes, lineLimit + 1))])
        var hash = SHA256()
        var size = 0
        while true {
            let found = buffer.withUnsafeBytes { raw in
                memchr(raw.baseAddress! + start, 0x0A, end - start).map { raw.baseAddress!.distance(to: $0) }
            }
            let lineEnd = found ?? end
            buffer.withUnsafeBytes { raw in
                hash.update(UnsafeRawBufferPointer(rebasing: raw[start..<lineEnd]))
            }
            size += lineEnd - start
            consumedBytes += Int64(lineEnd - start + (found == nil ? 0 : 1))
            start = found.map { $0 + 1 } ?? end
            if found != nil || atEnd { break }
            fill()
        }
        guard failure == nil else { return }
        oversized.append(
            Oversized(
                number: number, size: size, sha256: hash.finalize(), prefix: prefix,
                reason:
                    "line \(number) of \(label) is \(size) bytes, longer than the \(lineLimit)-byte line limit: not a "
                    + "notification body (read through, its first \(prefix.count) bytes kept)"))
    }

    /// Ends the input early with `failure` (lines not yet delivered are not read).
    func end(with failure: CLIError) {
        fail(failure.message)
    }

    private func take(upTo lineEnd: Int, consuming separator: Int) -> Range<Int> {
        lineNumber += 1
        let line = start..<lineEnd
        consumedBytes += Int64(lineEnd - start + separator)
        start = lineEnd + separator
        return line
    }

    /// Reads more input after the unconsumed bytes, moving them to the front (or growing the buffer for a line
    /// longer than a chunk, up to the limit) first.
    private func fill() {
        if start > 0 {
            let count = end - start
            buffer.withUnsafeMutableBytes { raw in
                _ = memmove(raw.baseAddress!, raw.baseAddress! + start, count)
            }
            start = 0
            end = count
        }
        if end == buffer.count {
            // The unconsumed bytes are one line, within the limit so far: room to see whether it ends within the
            // limit, and no more (a longer line is read through in the buffer as it is).
            buffer += [UInt8](repeating: 0, count: Swift.max(1, Swift.min(buffer.count, lineLimit + 1 - buffer.count)))
        }
        do {
            let count = try Syscall.retrying("read", path: path) {
                buffer.withUnsafeMutableBytes { raw in
                    Glibc.read(fd, raw.baseAddress! + end, raw.count - end)
                }
            }
            if count == 0 { atEnd = true }
            end += count
        } catch {
            fail("cannot read \(label) after line \(lineNumber): \(error.message)")
        }
    }

    private func fail(_ message: String) {
        failure = failure ?? CLIError.failure(message)
        atEnd = true
        start = end
    }

    private var label: String { path == "-" ? "standard input" : path }

    /// The size of the file open at `fd` when it is a regular file (not a pipe or a terminal), else nil.
    private static func regularFileSize(_ fd: Int32, path: String) -> Int64? {
        var status = stat()
        guard (try? Syscall.retrying("fstat", path: path) { fstat(fd, &status) }) != nil,
            status.st_mode & S_IFMT == S_IFREG
        else { return nil }
        return Int64(status.st_size)
    }

    /// Whether a line holds only spaces, tabs and carriage returns (JSON Lines allows such lines; they are skipped).
    static func isBlank(_ line: ArraySlice<UInt8>) -> Bool {
        // A notification body starts with `{`: most lines answer at their first byte.
        !line.contains { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }
    }
}
