#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// Free functions: inside the type, `stat` and `flock` name its own methods.
private func cStat(_ path: String, _ info: UnsafeMutablePointer<stat>) -> Int32 { stat(path, info) }
private func cFlock(_ fd: Int32, _ operation: Int32) -> Int32 { flock(fd, operation) }

/// Linux's `sync_file_range`, which the Glibc module does not export (it needs _GNU_SOURCE); nil elsewhere.
private let syncFileRange: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32)? = {
    guard let symbol = dlsym(nil, "sync_file_range") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32).self)
}()

/// The real file system: each operation is one POSIX call through ``Syscall``.
public struct PosixFileSystem: FileSystem {
    /// Creates the POSIX file system.
    public init() {}

    public func open(_ path: String, _ options: OpenOptions) throws(SystemError) -> FileDescriptor {
        var flags: Int32 = O_CLOEXEC
        switch options.access {
        case .readOnly: flags |= O_RDONLY
        case .writeOnly: flags |= O_WRONLY
        case .readWrite: flags |= O_RDWR
        }
        if options.create { flags |= O_CREAT }
        if options.exclusive { flags |= O_EXCL }
        if options.truncate { flags |= O_TRUNC }
        if options.directory { flags |= O_DIRECTORY }
        let mode = mode_t(options.mode)
        let fd = try Syscall.retrying("open", path: path) { Glibc.open(path, flags, mode) }
        return FileDescriptor(rawValue: fd)
    }

    public func close(_ fd: FileDescriptor) throws(SystemError) {
        try Syscall.closing(fd.rawValue)
    }

    public func pread(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64)
        throws(SystemError) -> Int
    {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        return try Syscall.retrying("pread") { Glibc.pread(fd.rawValue, base, buffer.count, off_t(offset)) }
    }

    public func pwrite(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64)
        throws(SystemError) -> Int
    {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return 0 }
        return try Syscall.retrying("pwrite") { Glibc.pwrite(fd.rawValue, base, bytes.count, off_t(offset)) }
    }

    public func fsync(_ fd: FileDescriptor) throws(SystemError) {
        try Syscall.retrying("fsync") { Glibc.fsync(fd.rawValue) }
    }

    public func fdatasync(_ fd: FileDescriptor) throws(SystemError) {
        try Syscall.retrying("fdatasync") { Glibc.fdatasync(fd.rawValue) }
    }

    public func ftruncate(_ fd: FileDescriptor, size: Int64) throws(SystemError) {
        try Syscall.retrying("ftruncate") { Glibc.ftruncate(fd.rawValue, off_t(size)) }
    }

    public func fstat(_ fd: FileDescriptor) throws(SystemError) -> FileStatus {
        var info = Glibc.stat()
        try Syscall.retrying("fstat") { Glibc.fstat(fd.rawValue, &info) }
        return FileStatus(size: Int64(info.st_size), isDirectory: (info.st_mode & S_IFMT) == S_IFDIR)
    }

    public func stat(_ path: String) throws(SystemError) -> FileStatus? {
        var info = Glibc.stat()
        do {
            try Syscall.retrying("stat", path: path) { cStat(path, &info) }
        } catch  where error.code == .notFound {
            return nil
        }
        return FileStatus(size: Int64(info.st_size), isDirectory: (info.st_mode & S_IFMT) == S_IFDIR)
    }

    public func rename(_ from: String, to: String) throws(SystemError) {
        try Syscall.retrying("rename", path: from) { Glibc.rename(from, to) }
    }

    public func unlink(_ path: String) throws(SystemError) {
        try Syscall.retrying("unlink", path: path) { Glibc.unlink(path) }
    }

    public func mkdir(_ path: String, mode: UInt32) throws(SystemError) {
        do {
            try Syscall.retrying("mkdir", path: path) { Glibc.mkdir(path, mode_t(mode)) }
        } catch  where error.code == .alreadyExists {
            return
        }
    }

    public func readDirectory(_ path: String) throws(SystemError) -> [String] {
        guard let dir = opendir(path) else { throw SystemError.fromErrno(Glibc.errno, call: "opendir", path: path) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
                String(cString: UnsafeRawPointer(tuple).assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    public func flock(_ fd: FileDescriptor, exclusive: Bool, wait: Bool) throws(SystemError) {
        let operation = (exclusive ? LOCK_EX : LOCK_SH) | (wait ? 0 : LOCK_NB)
        try Syscall.retrying("flock") { cFlock(fd.rawValue, operation) }
    }

    public func markHeld(_ fd: FileDescriptor) throws(SystemError) {
        // A read lock: a directory opens read-only, and a probe for a write lock sees any lock.
        var lock = Self.firstByte(F_RDLCK)
        _ = try Syscall.retrying("fcntl(F_OFD_SETLK)") { fcntl(fd.rawValue, Self.ofdSetLock, &lock) }
    }

    public func isMarkedHeld(_ fd: FileDescriptor) throws(SystemError) -> Bool {
        var lock = Self.firstByte(F_WRLCK)
        _ = try Syscall.retrying("fcntl(F_OFD_GETLK)") { fcntl(fd.rawValue, Self.ofdGetLock, &lock) }
        return lock.l_type != Int16(F_UNLCK)
    }

    /// `F_OFD_GETLK` and `F_OFD_SETLK` (Linux 3.15; the C library names them only with `_GNU_SOURCE`).
    private static let ofdGetLock: Int32 = 36
    private static let ofdSetLock: Int32 = 37

    /// A record lock of `type` on byte 0 (an open-file-description lock asks for `l_pid` 0).
    private static func firstByte(_ type: Int32) -> Glibc.flock {
        var lock = Glibc.flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 1
        lock.l_pid = 0
        return lock
    }

    public func startWriteback(_ fd: FileDescriptor, offset: Int64, count: Int) {
        _ = syncFileRange?(fd.rawValue, offset, Int64(count), 2)  // SYNC_FILE_RANGE_WRITE
    }

    public func mapReadOnly(_ fd: FileDescriptor, count: Int, populate: Bool) throws(SystemError)
        -> UnsafeRawBufferPointer?
    {
        guard count > 0 else { return nil }
        // MAP_POPULATE: the page tables are filled once, now, rather than by a fault at the first touch of every
        // page (on a log of gigabytes, random reads would otherwise fault for a long time).
        let address = Glibc.mmap(
            nil, count, PROT_READ, MAP_SHARED | (populate ? MAP_POPULATE : 0), fd.rawValue, 0)
        guard let address, address != MAP_FAILED else { throw SystemError.fromErrno(errno, call: "mmap") }
        return UnsafeRawBufferPointer(start: address, count: count)
    }

    public func unmap(_ region: UnsafeRawBufferPointer) {
        guard let base = region.baseAddress else { return }
        _ = Glibc.munmap(UnsafeMutableRawPointer(mutating: base), region.count)
    }

    public func fsyncDirectory(_ path: String) throws(SystemError) {
        let fd = try open(path, .directoryOnly)
        defer { try? close(fd) }
        try Syscall.retrying("fsync", path: path) { Glibc.fsync(fd.rawValue) }
    }
}
