import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A temporary file that keeps the lines of an input read once (standard input) for a second pass, readable by
/// its owner only. Lines are buffered and written a megabyte at a time; ``flush()`` writes the rest before the file
/// is read. ``remove()`` closes and deletes it (so does `deinit`): a command removes its spool when it is done with
/// it, whether it succeeded or failed.
final class Spool {
    /// Where the spool is.
    let path: String
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var removed = false

    /// Creates an empty spool named for `label` in `directory`.
    /// - Throws: ``CLIError`` failure when the directory cannot take a file.
    init(label: String, in directory: String) throws(CLIError) {
        var template = Array("\(directory)/ledger-\(label)-XXXXXX".utf8CString)
        do {
            fd = try Syscall.retrying("mkstemp", path: directory) {
                template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            }
        } catch {
            throw CLIError.failure("cannot spool standard input in \(directory): \(error.message)")
        }
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        buffer.reserveCapacity(1 << 20)
    }

    deinit { remove() }

    /// Adds a line (a newline is written after it).
    /// - Throws: ``CLIError`` failure when the spool cannot be written (a full disk).
    func append(_ line: [UInt8]) throws(CLIError) {
        buffer.append(contentsOf: line)
        buffer.append(0x0A)
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// Writes the buffered lines.
    /// - Throws: ``CLIError`` failure when the spool cannot be written (a full disk).
    func flush() throws(CLIError) {
        var written = 0
        while written < buffer.count {
            do {
                written += try Syscall.retrying("write", path: path) {
                    buffer.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
                }
            } catch {
                throw CLIError.failure("cannot spool standard input to \(path): \(error.message)")
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Closes and deletes the spool (once).
    func remove() {
        guard !removed else { return }
        removed = true
        try? Syscall.closing(fd)
        _ = try? Syscall.retrying("unlink", path: path) { unlink(path) }
    }
}
