import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// What the figures were measured on, and when.
struct Machine {
    var date: String
    var cpu: String
    var cores: Int
    var memoryGiB: Double
    var kernel: String

    static func current() -> Machine {
        var name = utsname()
        uname(&name)
        let kernel = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let cpu = procLine("/proc/cpuinfo", "model name").map { String($0.drop { $0 != ":" }.dropFirst()) } ?? "?"
        let memory = procLine("/proc/meminfo", "MemTotal:").flatMap { line in
            line.split(separator: " ").dropFirst().first.flatMap { Double($0) }
        }
        return Machine(
            date: utcNow(), cpu: cpu.trimmingSpaces, cores: onlineProcessorCount,
            memoryGiB: (memory ?? 0) / 1_048_576, kernel: kernel)
    }

    /// The 1, 5 and 15 minute load averages.
    static func loadAverage() -> String {
        guard let bytes = try? PosixFileSystem().readStream("/proc/loadavg") else { return "?" }
        return String(decoding: bytes, as: UTF8.self).split(separator: " ").prefix(3).joined(separator: " ")
    }

    private static func procLine(_ path: String, _ prefix: String) -> String? {
        guard let bytes = try? PosixFileSystem().readStream(path) else { return nil }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(prefix) }
            .map(String.init)
    }

    private static func utcNow() -> String {
        var seconds = time(nil)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}

extension String {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
