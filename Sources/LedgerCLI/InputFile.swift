import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a command's input: a file path, or `-` for standard input, with a size limit.
enum InputFile {
    /// The whole of `path` (`-`: standard input).
    /// - Throws: ``CLIError`` failure naming the file when it cannot be read or holds more than `limit` bytes.
    static func read(_ path: String, limit: Int) throws(CLIError) -> [UInt8] {
        guard let bytes = try read(path, upTo: limit) else {
            throw CLIError.failure("\(path) is larger than the limit of \(limit) bytes")
        }
        return bytes
    }

    /// The whole of `path` (`-`: standard input), or nil when it holds more than `limit` bytes (reading stops
    /// there).
    /// - Throws: ``CLIError`` failure naming the file when it cannot be opened or read.
    static func read(_ path: String, upTo limit: Int) throws(CLIError) -> [UInt8]? {
        let fd = try open(path)
        defer { if fd != 0 { try? Syscall.closing(fd) } }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count: Int
            do {
                count = try Syscall.retrying("read", path: path) {
                    chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                }
            } catch {
                throw CLIError.failure("cannot read \(path): \(error.message)")
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > limit { return nil }
        }
        return bytes
    }

    /// Opens a command's input for reading: standard input (descriptor 0, not to be closed) for `-`.
    /// - Throws: ``CLIError`` failure naming the file when it cannot be opened.
    static func open(_ path: String) throws(CLIError) -> Int32 {
        guard path != "-" else { return 0 }
        do {
            return try Syscall.retrying("open", path: path) { Glibc.open(path, O_RDONLY | O_CLOEXEC) }
        } catch {
            throw CLIError.failure("cannot read \(path): \(error.message)")
        }
    }

    /// Checks that every input can be opened (closing it again), so that a command which writes can refuse a
    /// missing input before it opens, or creates, the data directory.
    /// - Throws: ``CLIError`` failure naming the first input that cannot be opened.
    static func checkReadable(_ paths: [String]) throws(CLIError) {
        for path in paths where path != "-" {
            let fd = try open(path)
            try? Syscall.closing(fd)
        }
    }
}
