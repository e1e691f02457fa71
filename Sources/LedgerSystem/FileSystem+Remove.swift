#if canImport(Glibc)
import Glibc
#endif

extension FileSystem {
    /// Removes a file, or a directory and everything in it (without following symbolic links into other
    /// trees, and without forking a shell). A path that does not exist is not an error.
    public func removeTree(_ path: String) throws(SystemError) {
        guard let status = try stat(path) else { return }
        if status.isDirectory {
            for name in try readDirectory(path) where name != "." && name != ".." {
                try removeTree(Path.join(path, name))
            }
            try Syscall.retrying("rmdir", path: path) { rmdir(path) }
        } else {
            try unlink(path)
        }
    }
}
