import LedgerStore
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
/// The file itself stays; only the lock matters. `LOCK` is mode 0600 and names the holder by its pid, start time
/// and command (`ledger serve`), never its arguments: a token given on the command line must not reach a file. The directory is locked too because `LOCK` can be deleted under
/// a running writer (an operator "cleaning a stale lock file"): a second writer would then create a new `LOCK`,
/// lock it and write over the first writer's records. `LOCK` is still locked, so a writer of an earlier version
/// (which locks only `LOCK`) and this one still exclude each other.
struct WriterLock: Sendable {
    let fd: FileDescriptor
    let directoryFD: FileDescriptor

    /// Takes the lock and writes the holder's note into `LOCK`: `command` names the holder (``LogOptions/lockHolder``,
    /// nil: the program's name).
    static func acquire(_ fileSystem: any FileSystem, _ directory: DataDirectory, command: String? = nil)
        throws(LogError) -> WriterLock
    {
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
            fd = try fileSystem.open(directory.lock, OpenOptions(access: .readWrite, create: true, mode: 0o600))
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
        // A LOCK an earlier build created is 0644 and holds its whole command line: made private, then replaced.
        _ = try? Syscall.retrying("fchmod", path: directory.lock) { fchmod(fd.rawValue, 0o600) }
        let note = Array(Self.note(pid: Int(getpid()), started: SystemClock.wallMilliseconds(), command: command).utf8)
        try? fileSystem.ftruncate(fd, size: 0)
        try? fileSystem.writeAll(fd, note, at: 0)
        return WriterLock(fd: fd, directoryFD: directoryFD)
    }

    func release(_ fileSystem: any FileSystem) {
        try? fileSystem.close(fd)
        try? fileSystem.close(directoryFD)
    }

    /// The text of `LOCK`: `pid N`, `started TIME` (UTC) and `command NAME`, one a line.
    static func note(pid: Int, started: Int64, command: String?) -> String {
        let name = Self.commandName(command ?? programName())
        return "pid \(pid)\nstarted \(iso8601(milliseconds: started))\ncommand \(name)\n"
    }

    /// The refusal of a second writer, naming the holder from the text of `LOCK` (when it is still there).
    private static func held(_ directory: DataDirectory, _ holder: String?) -> LogError {
        let who = describe(holder ?? "")
        return LogError(
            .locked,
            "another writer holds \(directory.root) (\(who)); stop it first. Readers (verify, state, "
                + "history, export) still work while it runs")
    }

    /// "pid 123, started 2026-03-01T00:00:00Z: ledger serve" from the lock file's text. A `LOCK` of an earlier
    /// build holds the whole command line (`command /usr/bin/ledger serve --read-token …`): only the program's name
    /// and the subcommand are repeated, never the arguments.
    static func describe(_ text: String) -> String {
        var pid = "unknown pid"
        var started = ""
        var command = ""
        for line in text.split(separator: "\n") {
            if line.hasPrefix("pid "), let number = Int(line.dropFirst(4)) { pid = "pid \(number)" }
            if line.hasPrefix("started ") { started = String(line.dropFirst(8).prefix(32)) }
            if line.hasPrefix("command ") { command = commandName(String(line.dropFirst(8))) }
        }
        if !started.isEmpty, started.allSatisfy({ $0.isNumber || "-:TZ.".contains($0) }) {
            pid += ", started \(started)"
        }
        return command.isEmpty ? pid : "\(pid): \(command)"
    }

    /// At most the program's base name and the word after it, when that is a subcommand (`ledger serve`); an
    /// option, a path or anything else that could be an argument's value is left out.
    static func commandName(_ text: String) -> String {
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
        guard let first = words.first else { return "" }
        var name = String(first.split(separator: "/").last ?? first)
        if words.count > 1, let sub = words.dropFirst().first, sub.count <= 32,
            sub.allSatisfy({ ("a"..."z").contains($0) || $0 == "-" }), sub.first != "-"
        {
            name += " \(sub)"
        }
        return String(
            name.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(64).map(Character.init))
    }

    /// This process's program name (`argv[0]` without its directory), from /proc.
    private static func programName() -> String {
        guard let bytes = try? PosixFileSystem().readStream("/proc/self/cmdline", limit: 4096),
            let first = bytes.split(separator: 0).first
        else { return "?" }
        let path = String(decoding: first, as: UTF8.self)
        return String(path.split(separator: "/").last ?? "?")
    }

    /// `2026-03-01T00:00:00Z` for milliseconds since the epoch.
    private static func iso8601(milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "\(milliseconds) ms" }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):"
            + "\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}
