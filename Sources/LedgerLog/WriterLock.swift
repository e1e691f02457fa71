import LedgerSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The one-writer-per-directory lock: an exclusive `flock` on the data directory itself and on `LOCK`, which
/// names its holder.
///
/// The kernel releases a `flock` when its holder dies, so a crashed writer never leaves the directory locked.
/// The file itself stays; only the lock matters. The directory is locked too because `LOCK` can be deleted under
/// a running writer (an operator "cleaning a stale lock file"): a second writer would then create a new `LOCK`,
/// lock it and write over the first writer's records. `LOCK` is still locked, so a writer of an earlier version
/// (which locks only `LOCK`) and this one still exclude each other.
struct WriterLock: Sendable {
    let fd: FileDescriptor
    let directoryFD: FileDescriptor

    static func acquire(_ fileSystem: any FileSystem, _ directory: DataDirectory) throws(LogError) -> WriterLock {
        let directoryFD: FileDescriptor
        do {
            directoryFD = try fileSystem.open(directory.root, .directoryOnly)
        } catch {
            throw LogError.system(error, "opening \(directory.root)")
        }
        do {
            try fileSystem.flock(directoryFD, exclusive: true, wait: false)
        } catch {
            try? fileSystem.close(directoryFD)
            if error.code == .wouldBlock {
                let holder = (try? fileSystem.readFile(directory.lock)).map { String(decoding: $0, as: UTF8.self) }
                throw held(directory, holder)
            }
            throw LogError.system(error, "locking \(directory.root)")
        }
        let fd: FileDescriptor
        do {
            fd = try fileSystem.open(directory.lock, .createReadWrite)
        } catch {
            try? fileSystem.close(directoryFD)
            throw LogError.system(error, "opening \(directory.lock)")
        }
        do {
            try fileSystem.flock(fd, exclusive: true, wait: false)
        } catch {
            let holder = (try? fileSystem.read(fd, count: 4096, at: 0)).map { String(decoding: $0, as: UTF8.self) }
            try? fileSystem.close(fd)
            try? fileSystem.close(directoryFD)
            if error.code == .wouldBlock { throw held(directory, holder) }
            throw LogError.system(error, "locking \(directory.lock)")
        }
        // The mark readers look for before mapping the last segment (EventLog.tailStaysWhole): they cannot see the
        // flocks without taking them, and a reader that saw no mark while a writer runs could be killed by it.
        do {
            try fileSystem.markHeld(directoryFD)
        } catch {
            try? fileSystem.close(fd)
            try? fileSystem.close(directoryFD)
            throw LogError.system(error, "marking \(directory.root) as held by its writer")
        }
        let note = Array("pid \(getpid())\ncommand \(commandLine())\n".utf8)
        try? fileSystem.ftruncate(fd, size: 0)
        try? fileSystem.writeAll(fd, note, at: 0)
        return WriterLock(fd: fd, directoryFD: directoryFD)
    }

    func release(_ fileSystem: any FileSystem) {
        try? fileSystem.close(fd)
        try? fileSystem.close(directoryFD)
    }

    /// The refusal of a second writer, naming the holder from the text of `LOCK` (when it is still there).
    private static func held(_ directory: DataDirectory, _ holder: String?) -> LogError {
        let who = describe(holder ?? "")
        return LogError(
            .locked,
            "another writer holds \(directory.root) (\(who)); stop it first. Readers (verify, state, "
                + "history, export) still work while it runs")
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
