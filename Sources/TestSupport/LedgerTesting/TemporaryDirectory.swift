import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A fresh directory under /tmp for one test, removed (without forking) when released.
///
/// Never `system("rm -rf")`: a fork would share this process's descriptors, and their flocks, with the
/// child, and a test running in parallel could find its data directory still locked.
public final class TemporaryDirectory: Sendable {
    /// The directory's path.
    public let path: String

    /// Creates the directory.
    public init(prefix: String = "ledger-test") {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(cString: made!)
    }

    deinit {
        Self.removeTree(path)
    }

    /// Removes a file or a directory tree.
    public static func removeTree(_ path: String) {
        let fileSystem = PosixFileSystem()
        guard let status = try? fileSystem.stat(path) else { return }
        if status.isDirectory {
            for name in (try? fileSystem.readDirectory(path)) ?? [] { removeTree(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
