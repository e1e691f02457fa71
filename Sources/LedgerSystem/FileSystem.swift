/// The file operations the ledger's durable log needs, behind one protocol so tests can make any of them fail.
///
/// ``PosixFileSystem`` is the real one: every call goes through ``Syscall/retrying(_:path:_:)``.
/// ``FaultInjectingFileSystem`` wraps another and fails chosen calls with ENOSPC, EIO or short writes.
///
/// Durability is explicit: data is durable after ``fsync(_:)`` or ``fdatasync(_:)`` on the file, and a
/// created, renamed or removed name is durable only after ``fsyncDirectory(_:)`` on its directory.
public protocol FileSystem: Sendable {
    /// Opens (or creates) a file.
    func open(_ path: String, _ options: OpenOptions) throws(SystemError) -> FileDescriptor
    /// Closes a descriptor exactly once.
    func close(_ fd: FileDescriptor) throws(SystemError)
    /// Reads up to `buffer.count` bytes at `offset`; returns how many were read (0 at the end of the file).
    func pread(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64)
        throws(SystemError) -> Int
    /// Writes up to `bytes.count` bytes at `offset`; returns how many were written (possibly fewer).
    func pwrite(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(SystemError) -> Int
    /// Flushes the file's data and metadata to the device.
    func fsync(_ fd: FileDescriptor) throws(SystemError)
    /// Flushes the file's data (and the metadata needed to read it back, such as its size) to the device.
    func fdatasync(_ fd: FileDescriptor) throws(SystemError)
    /// Sets the file's size.
    func ftruncate(_ fd: FileDescriptor, size: Int64) throws(SystemError)
    /// The size and kind of an open file.
    func fstat(_ fd: FileDescriptor) throws(SystemError) -> FileStatus
    /// The size and kind of a path, or nil when nothing is there.
    func stat(_ path: String) throws(SystemError) -> FileStatus?
    /// Atomically renames `from` to `to`, replacing `to`.
    func rename(_ from: String, to: String) throws(SystemError)
    /// Removes a file.
    func unlink(_ path: String) throws(SystemError)
    /// Creates a directory; succeeds when it already exists.
    func mkdir(_ path: String, mode: UInt32) throws(SystemError)
    /// The names in a directory (without `.` and `..`), in no particular order.
    func readDirectory(_ path: String) throws(SystemError) -> [String]
    /// Takes an advisory whole-file lock; with `wait == false` fails at once with ``SystemError/Code/wouldBlock``.
    func flock(_ fd: FileDescriptor, exclusive: Bool, wait: Bool) throws(SystemError)
    /// Makes the entries of a directory (creations, renames, removals) durable.
    func fsyncDirectory(_ path: String) throws(SystemError)
    /// Marks the file or directory as held, for as long as this descriptor stays open (an open-file-description
    /// read lock, `F_OFD_SETLK`, on byte 0), in a way other processes can see without taking anything
    /// (``isMarkedHeld(_:)``). The writer marks its data directory so; an `flock` cannot be looked at that way.
    func markHeld(_ fd: FileDescriptor) throws(SystemError)
    /// Whether a descriptor other than `fd`, in this process or another, holds the mark of ``markHeld(_:)`` on
    /// the file (`F_OFD_GETLK`); true when this file system cannot tell.
    func isMarkedHeld(_ fd: FileDescriptor) throws(SystemError) -> Bool
    /// Starts writing a range of the file to the device without waiting (`sync_file_range`), so a later
    /// `fdatasync` has less to wait for. A hint only: it makes nothing durable, and may do nothing.
    func startWriteback(_ fd: FileDescriptor, offset: Int64, count: Int)
    /// Maps the first `count` bytes of an open file read-only (`mmap`, shared), so they can be read in place
    /// without a call per read; nil when this file system does not map (the caller then uses ``pread(_:into:at:)``).
    ///
    /// Touching a mapped byte the file no longer has kills the process (SIGBUS), and so does an I/O error under
    /// a mapped page: map only a file that cannot shrink while mapped, and release it with ``unmap(_:)``.
    /// `populate`: fill the page tables now (reading the file in when it is not cached) rather than at the first
    /// touch of each page.
    func mapReadOnly(_ fd: FileDescriptor, count: Int, populate: Bool) throws(SystemError) -> UnsafeRawBufferPointer?
    /// Releases a region ``mapReadOnly(_:count:populate:)`` returned (`munmap`).
    func unmap(_ region: UnsafeRawBufferPointer)
}

extension FileSystem {
    /// Does nothing: writeback hints are optional.
    public func startWriteback(_ fd: FileDescriptor, offset: Int64, count: Int) {}

    /// Marks nothing: the mark is optional.
    public func markHeld(_ fd: FileDescriptor) throws(SystemError) {}

    /// Cannot tell, so says held.
    public func isMarkedHeld(_ fd: FileDescriptor) throws(SystemError) -> Bool { true }

    /// Maps nothing: mapping is optional, every read can be a `pread`.
    public func mapReadOnly(_ fd: FileDescriptor, count: Int, populate: Bool) throws(SystemError)
        -> UnsafeRawBufferPointer?
    { nil }

    /// ``mapReadOnly(_:count:populate:)`` with its page tables filled at once.
    public func mapReadOnly(_ fd: FileDescriptor, count: Int) throws(SystemError) -> UnsafeRawBufferPointer? {
        try mapReadOnly(fd, count: count, populate: true)
    }

    /// Nothing to release.
    public func unmap(_ region: UnsafeRawBufferPointer) {}
}
