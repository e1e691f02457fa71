import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The real `ledger` binary running `serve` as a child process, its standard output and error in files.
final class ServeProcess {
    /// The child's pid.
    let pid: pid_t
    /// Where its standard output goes.
    let outPath: String
    /// Where its standard error goes.
    let errPath: String
    private var exited: Int32?

    /// The `ledger` executable built beside the test bundle, when there is one.
    static var binary: String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let exe = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let path = String(exe[..<(exe.lastIndex(of: "/") ?? exe.endIndex)]) + "/ledger"
        return access(path, X_OK) == 0 ? path : nil
    }

    /// Starts `ledger ARGUMENTS` with only `environment` (and a PATH), output into `directory`.
    /// `blocking`: signals the child starts with blocked (none by default, as under a shell).
    init(
        _ binary: String, _ arguments: [String], environment: [String: String], outputIn directory: String,
        blocking blocked: [Int32] = []
    ) throws {
        outPath = directory + "/serve.out"
        errPath = directory + "/serve.err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = ([binary] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let variables = ["PATH=/usr/bin:/bin"] + environment.map { "\($0.key)=\($0.value)" }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
        defer { for pointer in envp { free(pointer) } }
        // The spawning thread's blocked signals would be the child's (a test runner's threads block SIGTERM):
        // the child starts with none blocked and SIGTERM and SIGINT at their defaults, as under a shell.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        for signal in blocked { sigaddset(&none, signal) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGINT)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child = pid_t()
        let spawned = posix_spawn(&child, binary, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw SpawnFailure(message: "posix_spawn \(binary): errno \(spawned)") }
        pid = child
    }

    deinit {
        if exited == nil { _ = stop() }
    }

    /// Everything written to standard output so far.
    var output: String { Self.read(outPath) }
    /// Everything written to standard error so far.
    var errors: String { Self.read(errPath) }

    /// The port of `listening on http://HOST:PORT`, once printed; nil when the child exits or `seconds` pass first.
    func waitUntilListening(seconds: Int = 60) -> UInt16? {
        for _ in 0..<(seconds * 50) {
            if let line = output.split(separator: "\n").first(where: { $0.hasPrefix("listening on http://") }),
                let colon = line.lastIndex(of: ":")
            {
                return UInt16(line[line.index(after: colon)...])
            }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                exited = status
                return nil
            }
            usleep(20_000)
        }
        return nil
    }

    /// The ports of the `listening on http://HOST:PORT` lines, named by `names` in the order the lines come (the
    /// webhook's first), once all are printed; nil when the child exits or `seconds` pass first.
    func waitUntilListening(named names: [String], seconds: Int = 60) -> [String: UInt16]? {
        for _ in 0..<(seconds * 50) {
            let ports = output.split(separator: "\n").filter { $0.hasPrefix("listening on http://") }.compactMap {
                line in line.lastIndex(of: ":").flatMap { UInt16(line[line.index(after: $0)...]) }
            }
            if ports.count >= names.count { return Dictionary(uniqueKeysWithValues: zip(names, ports)) }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                exited = status
                return nil
            }
            usleep(20_000)
        }
        return nil
    }

    /// The exit code once the child exits by itself (it is killed after `seconds`).
    func waitForExit(seconds: Int = 30) -> Int32 {
        var status: Int32 = 0
        for _ in 0..<(seconds * 50) where exited == nil {
            if waitpid(pid, &status, WNOHANG) == pid { exited = status } else { usleep(20_000) }
        }
        return stop()
    }

    /// SIGTERM, then the exit code once the child is gone (128 + signal when a signal ended it).
    func stop() -> Int32 {
        if exited == nil {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            // At most 30 s for a graceful stop, then SIGKILL: a test must not hang on a child that ignores SIGTERM.
            for _ in 0..<1500 where exited == nil {
                if waitpid(pid, &status, WNOHANG) == pid { exited = status } else { usleep(20_000) }
            }
            if exited == nil {
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                exited = status
            }
        }
        let status = exited ?? 0
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// A file's text ("" when it cannot be read).
    static func read(_ path: String) -> String {
        guard let bytes = try? PosixFileSystem().readStream(path, limit: 64 << 20) else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Every regular file under `directory`, recursively.
    static func files(under directory: String) -> [String] {
        let fileSystem = PosixFileSystem()
        var found: [String] = []
        for name in (try? fileSystem.readDirectory(directory)) ?? [] {
            let path = directory + "/" + name
            if (try? fileSystem.stat(path))??.isDirectory == true {
                found += files(under: path)
            } else {
                found.append(path)
            }
        }
        return found
    }
}

/// A child that could not be started.
struct SpawnFailure: Error {
    var message: String
}
