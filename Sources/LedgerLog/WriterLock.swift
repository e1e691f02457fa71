import LedgerSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The one-writer-per-directory lock: an exclusive `flock` on `LOCK`, which names its holder.
///
/// The kernel releases a `flock` when its holder dies, so a crashed writer never leaves the directory locked.
/// The file itself stays; only the lock matters.
struct WriterLock: Sendable {
    let fd: FileDescriptor

    static func acquire(_ fileSystem: any FileSystem, _ directory: DataDirectory) throws(LogError) -> WriterLock {
        let fd: FileDescriptor
        do {
            fd = try fileSystem.open(directory.lock, .createReadWrite)
        } catch {
            throw LogError.system(error, "opening \(directory.lock)")
        }
        do {
            try fileSystem.flock(fd, exclusive: true, wait: false)
        } catch {
            let holder = (try? fileSystem.read(fd, count: 4096, at: 0)).map { String(decoding: $0, as: UTF8.self) }
            try? fileSystem.close(fd)
            if error.code == .wouldBlock {
                let who = describe(holder ?? "")
                throw LogError(
                    .locked,
                    "another writer holds \(directory.root) (\(who)); stop it first. Readers (verify, state, "
                        + "history, export) still work while it runs")
            }
            throw LogError.system(error, "locking \(directory.lock)")
        }
        let note = Array("pid \(getpid())\ncommand \(commandLine())\n".utf8)
        try? fileSystem.ftruncate(fd, size: 0)
        try? fileSystem.writeAll(fd, note, at: 0)
        return WriterLock(fd: fd)
    }

    func release(_ fileSystem: any FileSystem) {
        try? fileSystem.close(fd)
    }

    /// "pid 123: ledger serve …" from the lock file's text.
    private static func describe(_ text: String) -> String {
        var pid = "unknown pid"
        var command = ""
        for line in text.split(separator: "\n") {
            if line.hasPrefix("pid ") { pid = "pid \(line.dropFirst(4))" }
            if line.hasPrefix("command ") { command = String(line.dropFirst(8)) }
        }
        return command.isEmpty ? pid : "\(pid): \(command)"
    }

    /// This process's command line, from /proc.
    private static func commandLine() -> String {
        guard let bytes = try? PosixFileSystem().readStream("/proc/self/cmdline") else { return "?" }
        return bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
    }
}
