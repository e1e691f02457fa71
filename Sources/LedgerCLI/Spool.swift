import LedgerSystem

/// A temporary file that keeps the lines of an input read once (standard input) for a second pass, readable by
/// its owner only. Lines are buffered and written a megabyte at a time; ``flush()`` writes the rest before the file
/// is read. ``remove()`` closes and deletes it (so does `deinit`): a command removes its spool when it is done with
/// it, whether it succeeded or failed.
final class Spool {
    /// Where the spool is.
    let path: String
    private let fileSystem: any FileSystem
    private let fd: FileDescriptor
    private var buffer: [UInt8] = []
    private var written: Int64 = 0
    private var removed = false

    /// Creates an empty spool named for `label` in `directory`: a new file (never one that exists, nor a link's
    /// target) under a random name.
    /// - Throws: ``CLIError`` failure when the directory cannot take a file.
    init(label: String, in directory: String, fileSystem: any FileSystem = PosixFileSystem()) throws(CLIError) {
        self.fileSystem = fileSystem
        let options = OpenOptions(access: .writeOnly, create: true, exclusive: true, mode: 0o600)
        var attempt = 0
        while true {
            let name = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let candidate = "\(directory)/ledger-\(label)-\(name)"
            do {
                fd = try fileSystem.open(candidate, options)
                path = candidate
                break
            } catch  where error.code == .alreadyExists && attempt < 8 {
                attempt += 1
            } catch {
                throw CLIError.failure("cannot spool standard input in \(directory): \(error.message)")
            }
        }
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
        do {
            try fileSystem.writeAll(fd, buffer, at: written)
        } catch {
            throw CLIError.failure("cannot spool standard input to \(path): \(error.message)")
        }
        written += Int64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Closes and deletes the spool (once).
    func remove() {
        guard !removed else { return }
        removed = true
        try? fileSystem.close(fd)
        try? fileSystem.unlink(path)
    }
}
