import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A fault that ``FaultInjectingFileSystem`` produces on chosen calls.
public struct Fault: Sendable, Hashable {
    /// The kind of call a fault applies to.
    public enum Operation: Sendable, Hashable {
        /// `open`.
        case open
        /// `pwrite`.
        case write
        /// `pread`.
        case read
        /// `fsync` and `fdatasync` on a file.
        case fsync
        /// `fsync` on a directory.
        case fsyncDirectory
        /// `ftruncate`.
        case truncate
        /// `rename`.
        case rename
        /// `mkdir`.
        case mkdir
    }

    /// What happens to a matching call.
    public enum Effect: Sendable, Hashable {
        /// The call fails with this errno (e.g. `ENOSPC`, `EIO`) and does nothing.
        case error(Int32)
        /// A write writes at most this many bytes and reports that count (a short write).
        case shortWrite(maxBytes: Int)
    }

    /// Which calls this fault applies to.
    public var operation: Operation
    /// What it does to them.
    public var effect: Effect
    /// Only calls on paths containing this text (nil: any path).
    public var pathContains: String?
    /// How many matching calls succeed before the fault fires.
    public var after: Int
    /// How many times it fires; nil until it is cleared.
    public var times: Int?

    /// Creates a fault.
    public init(
        _ operation: Operation, _ effect: Effect, pathContains: String? = nil, after: Int = 0, times: Int? = nil
    ) {
        self.operation = operation
        self.effect = effect
        self.pathContains = pathContains
        self.after = after
        self.times = times
    }
}

/// A ``FileSystem`` that forwards to another and makes chosen calls fail, for tests.
///
/// ```swift
/// let fs = FaultInjectingFileSystem()
/// fs.inject(Fault(.write, .error(ENOSPC), pathContains: ".seg"))
/// // … appends now fail with noSpace …
/// fs.clearFaults()
/// ```
public final class FaultInjectingFileSystem: FileSystem {
    private struct Armed {
        var fault: Fault
        var seen = 0
        var fired = 0
    }

    private struct State {
        var faults: [Armed] = []
        var paths: [Int32: String] = [:]
        var firedCount = 0
    }

    private let base: any FileSystem
    private let state = Mutex(State())
    /// Files whose path contains this are mapped by the wrapped file system; others are not (see
    /// ``mapReadOnly(_:count:populate:)``).
    private let mappedPaths: String?

    /// Wraps a file system (the real one by default); maps nothing.
    public init(wrapping base: any FileSystem = PosixFileSystem()) {
        self.base = base
        self.mappedPaths = nil
    }

    /// Wraps a file system (the real one by default) and maps the files whose path contains `mappedPaths` (e.g.
    /// derived files a test wants read in place), no others.
    public init(wrapping base: any FileSystem = PosixFileSystem(), mappingPathsContaining mappedPaths: String) {
        self.base = base
        self.mappedPaths = mappedPaths
    }

    /// Arms a fault; it applies to later matching calls.
    public func inject(_ fault: Fault) {
        state.withLock { $0.faults.append(Armed(fault: fault)) }
    }

    /// Disarms every fault; calls succeed again.
    public func clearFaults() {
        state.withLock { $0.faults.removeAll() }
    }

    /// How many times a fault has fired since this file system was made.
    public var firedCount: Int { state.withLock { $0.firedCount } }

    private func effect(_ operation: Fault.Operation, path: String?) -> Fault.Effect? {
        state.withLock { state -> Fault.Effect? in
            for index in state.faults.indices {
                let armed = state.faults[index]
                guard armed.fault.operation == operation else { continue }
                if let needle = armed.fault.pathContains {
                    guard let path, path.contains(needle) else { continue }
                }
                state.faults[index].seen += 1
                guard armed.seen >= armed.fault.after else { continue }
                if let times = armed.fault.times, armed.fired >= times { continue }
                state.faults[index].fired += 1
                state.firedCount += 1
                return armed.fault.effect
            }
            return nil
        }
    }

    private func path(of fd: FileDescriptor) -> String? {
        state.withLock { $0.paths[fd.rawValue] }
    }

    private func check(_ operation: Fault.Operation, _ call: String, path: String?) throws(SystemError) {
        if case .error(let value)? = effect(operation, path: path) {
            throw SystemError.fromErrno(value, call: call, path: path)
        }
    }

    public func open(_ path: String, _ options: OpenOptions) throws(SystemError) -> FileDescriptor {
        try check(.open, "open", path: path)
        let fd = try base.open(path, options)
        state.withLock { $0.paths[fd.rawValue] = path }
        return fd
    }

    public func close(_ fd: FileDescriptor) throws(SystemError) {
        _ = state.withLock { $0.paths.removeValue(forKey: fd.rawValue) }
        try base.close(fd)
    }

    public func pread(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64)
        throws(SystemError) -> Int
    {
        try check(.read, "pread", path: path(of: fd))
        return try base.pread(fd, into: buffer, at: offset)
    }

    public func pwrite(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64)
        throws(SystemError) -> Int
    {
        let path = path(of: fd)
        switch effect(.write, path: path) {
        case .error(let value)?:
            throw SystemError.fromErrno(value, call: "pwrite", path: path)
        case .shortWrite(let maxBytes)?:
            let count = min(maxBytes, bytes.count)
            return try base.pwrite(fd, UnsafeRawBufferPointer(rebasing: bytes[0..<count]), at: offset)
        case nil:
            return try base.pwrite(fd, bytes, at: offset)
        }
    }

    public func fsync(_ fd: FileDescriptor) throws(SystemError) {
        try check(.fsync, "fsync", path: path(of: fd))
        try base.fsync(fd)
    }

    public func fdatasync(_ fd: FileDescriptor) throws(SystemError) {
        try check(.fsync, "fdatasync", path: path(of: fd))
        try base.fdatasync(fd)
    }

    public func ftruncate(_ fd: FileDescriptor, size: Int64) throws(SystemError) {
        try check(.truncate, "ftruncate", path: path(of: fd))
        try base.ftruncate(fd, size: size)
    }

    public func fstat(_ fd: FileDescriptor) throws(SystemError) -> FileStatus {
        try base.fstat(fd)
    }

    public func stat(_ path: String) throws(SystemError) -> FileStatus? {
        try base.stat(path)
    }

    public func rename(_ from: String, to: String) throws(SystemError) {
        try check(.rename, "rename", path: from)
        try base.rename(from, to: to)
    }

    public func unlink(_ path: String) throws(SystemError) {
        try base.unlink(path)
    }

    public func mkdir(_ path: String, mode: UInt32) throws(SystemError) {
        try check(.mkdir, "mkdir", path: path)
        try base.mkdir(path, mode: mode)
    }

    public func readDirectory(_ path: String) throws(SystemError) -> [String] {
        try base.readDirectory(path)
    }

    public func flock(_ fd: FileDescriptor, exclusive: Bool, wait: Bool) throws(SystemError) {
        try base.flock(fd, exclusive: exclusive, wait: wait)
    }

    public func startWriteback(_ fd: FileDescriptor, offset: Int64, count: Int) {
        base.startWriteback(fd, offset: offset, count: count)
    }

    /// Declines (nil) unless the file's path contains the pattern given at init: every other read then goes through
    /// ``pread(_:into:at:)``, where the read faults apply, however late they are injected.
    public func mapReadOnly(_ fd: FileDescriptor, count: Int, populate: Bool) throws(SystemError)
        -> UnsafeRawBufferPointer?
    {
        guard let mappedPaths, let path = state.withLock({ $0.paths[fd.rawValue] }), path.contains(mappedPaths) else {
            return nil
        }
        return try base.mapReadOnly(fd, count: count, populate: populate)
    }

    /// Releases a region this file system mapped.
    public func unmap(_ region: UnsafeRawBufferPointer) { base.unmap(region) }

    public func fsyncDirectory(_ path: String) throws(SystemError) {
        try check(.fsyncDirectory, "fsync", path: path)
        try base.fsyncDirectory(path)
    }
}
