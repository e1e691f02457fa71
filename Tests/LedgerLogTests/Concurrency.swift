import LedgerLog
import LedgerSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Collects optional seqs from many threads (nil marks a failure).
final class ResultBox: Sendable {
    private let storage = Mutex<[UInt64?]>([])
    func add(_ value: UInt64?) { storage.withLock { $0.append(value) } }
    var values: [UInt64] { storage.withLock { $0.map { $0 ?? 0 } } }
}

/// A file system that passes every call to the real one: the tests' file systems override the call they watch.
class PassthroughFileSystem: FileSystem, @unchecked Sendable {
    // @unchecked Sendable: `base` is immutable and itself Sendable; subclasses guard their own state.
    let base = PosixFileSystem()

    func open(_ path: String, _ options: OpenOptions) throws(SystemError) -> FileDescriptor {
        try base.open(path, options)
    }
    func close(_ fd: FileDescriptor) throws(SystemError) { try base.close(fd) }
    func pread(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64)
        throws(SystemError) -> Int
    { try base.pread(fd, into: buffer, at: offset) }
    func pwrite(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(SystemError) -> Int {
        try base.pwrite(fd, bytes, at: offset)
    }
    func fsync(_ fd: FileDescriptor) throws(SystemError) { try base.fsync(fd) }
    func fdatasync(_ fd: FileDescriptor) throws(SystemError) { try base.fdatasync(fd) }
    func ftruncate(_ fd: FileDescriptor, size: Int64) throws(SystemError) { try base.ftruncate(fd, size: size) }
    func fstat(_ fd: FileDescriptor) throws(SystemError) -> FileStatus { try base.fstat(fd) }
    func stat(_ path: String) throws(SystemError) -> FileStatus? { try base.stat(path) }
    func rename(_ from: String, to: String) throws(SystemError) { try base.rename(from, to: to) }
    func unlink(_ path: String) throws(SystemError) { try base.unlink(path) }
    func mkdir(_ path: String, mode: UInt32) throws(SystemError) { try base.mkdir(path, mode: mode) }
    func readDirectory(_ path: String) throws(SystemError) -> [String] { try base.readDirectory(path) }
    func flock(_ fd: FileDescriptor, exclusive: Bool, wait: Bool) throws(SystemError) {
        try base.flock(fd, exclusive: exclusive, wait: wait)
    }
    func fsyncDirectory(_ path: String) throws(SystemError) { try base.fsyncDirectory(path) }
    func markHeld(_ fd: FileDescriptor) throws(SystemError) { try base.markHeld(fd) }
    func isMarkedHeld(_ fd: FileDescriptor) throws(SystemError) -> Bool { try base.isMarkedHeld(fd) }
    func startWriteback(_ fd: FileDescriptor, offset: Int64, count: Int) {
        base.startWriteback(fd, offset: offset, count: count)
    }
}

/// Counts fdatasync calls, to see group commit at work.
final class CountingFileSystem: PassthroughFileSystem, @unchecked Sendable {
    private let count = Mutex(0)
    var syncs: Int { count.withLock { $0 } }

    override func fdatasync(_ fd: FileDescriptor) throws(SystemError) {
        count.withLock { $0 += 1 }
        try base.fdatasync(fd)
    }
}
