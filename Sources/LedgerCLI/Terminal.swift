import LedgerSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Standard output and error, written without buffering surprises. Tests capture both per task.
public enum Terminal {
    /// When set (for the current task), output goes here instead of the process's descriptors.
    @TaskLocal public static var capture: OutputCapture?

    /// Writes to standard output.
    public static func out(_ text: String) {
        if let capture { capture.append(text, error: false) } else { write(1, text) }
    }

    /// Writes a line to standard output.
    public static func line(_ text: String = "") {
        out(text + "\n")
    }

    /// Writes to standard error.
    public static func err(_ text: String) {
        if let capture { capture.append(text, error: true) } else { write(2, text) }
    }

    /// Whether standard error is a terminal (progress bars are drawn only then).
    public static var stderrIsTerminal: Bool { capture == nil && isatty(2) == 1 }

    private static func write(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let start = offset
            let written = try? Syscall.retrying("write") {
                bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + start, $0.count - start) }
            }
            guard let written, written > 0 else { return }  // a closed pipe: nothing more to say
            offset += written
        }
    }
}

/// Captured standard output and error of commands run in-process.
public final class OutputCapture: Sendable {
    private let buffers = Mutex<(out: String, err: String)>(("", ""))

    /// An empty capture.
    public init() {}

    func append(_ text: String, error: Bool) {
        buffers.withLock { if error { $0.err += text } else { $0.out += text } }
    }

    /// Everything written to standard output.
    public var standardOutput: String { buffers.withLock { $0.out } }
    /// Everything written to standard error.
    public var standardError: String { buffers.withLock { $0.err } }
}
