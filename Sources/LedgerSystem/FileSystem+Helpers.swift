import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Makes temporary file names unique within the process, so concurrent writers of one file never collide.
private let temporaryCounter = Atomic<Int>(0)

extension FileSystem {
    /// Writes all of `bytes` at `offset`, looping on short writes.
    ///
    /// A write that makes no progress at all fails with ``SystemError/Code/shortWrite``.
    public func writeAll(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[done...])
            let written = try pwrite(fd, rest, at: offset + Int64(done))
            if written <= 0 {
                throw SystemError(
                    .shortWrite, call: "pwrite",
                    message: "pwrite wrote nothing after \(done) of \(bytes.count) bytes; check free space")
            }
            done += written
        }
    }

    /// Writes all of `bytes` at `offset`, looping on short writes.
    public func writeAll(_ fd: FileDescriptor, _ bytes: [UInt8], at offset: Int64) throws(SystemError) {
        try bytes.withBytes { (raw) throws(SystemError) in try writeAll(fd, raw, at: offset) }
    }

    /// Reads until `buffer` is full or the file ends; returns how many bytes were read.
    public func readFully(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64)
        throws(SystemError) -> Int
    {
        var done = 0
        while done < buffer.count {
            let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[done...])
            let got = try pread(fd, into: rest, at: offset + Int64(done))
            if got == 0 { break }
            done += got
        }
        return done
    }

    /// Reads up to `count` bytes at `offset` (fewer at the end of the file).
    public func read(_ fd: FileDescriptor, count: Int, at offset: Int64) throws(SystemError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let got = try out.withMutableBytes { (raw) throws(SystemError) in
            try readFully(fd, into: raw, at: offset)
        }
        if got < count { out.removeLast(count - got) }
        return out
    }

    /// The whole content of a file, or nil when it does not exist.
    public func readFile(_ path: String) throws(SystemError) -> [UInt8]? {
        let fd: FileDescriptor
        do {
            fd = try open(path, .read)
        } catch  where error.code == .notFound {
            return nil
        }
        defer { try? close(fd) }
        let size = try fstat(fd).size
        return try read(fd, count: Int(size), at: 0)
    }

    /// The content of a file whose size `stat` does not tell (e.g. under /proc), read until its end, up to
    /// `limit` bytes; nil when it does not exist.
    public func readStream(_ path: String, limit: Int = 1 << 20) throws(SystemError) -> [UInt8]? {
        let fd: FileDescriptor
        do {
            fd = try open(path, .read)
        } catch  where error.code == .notFound {
            return nil
        }
        defer { try? close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while out.count < limit {
            let got = try chunk.withMutableBytes { (raw) throws(SystemError) in
                try pread(fd, into: raw, at: Int64(out.count))
            }
            if got == 0 { break }
            out.append(contentsOf: chunk[0..<got])
        }
        return out
    }

    /// Replaces a file's content atomically and durably: a temporary file beside it is written and fsynced,
    /// renamed over the target, and the directory fsynced.
    public func writeFileDurably(_ path: String, _ bytes: [UInt8]) throws(SystemError) {
        var writer = try DurableFileWriter(path, in: self)
        do {
            try writer.append(bytes)
        } catch {
            writer.abandon()
            throw error
        }
        try writer.commit()
    }

    /// A name beside `path` for a temporary file that will replace it: unique within the process, and naming the
    /// process (`<path>.tmp-<pid>-<n>`), so a crashed writer's leftovers can be told from a running one's.
    public func temporaryPath(for path: String) -> String {
        let number = temporaryCounter.wrappingAdd(1, ordering: .relaxed).newValue
        return "\(path).tmp-\(getpid())-\(number)"
    }

    /// Renames a written and fsynced `temporary` file over `path` and fsyncs the directory; on failure the
    /// temporary file is removed.
    public func replaceDurably(_ path: String, with temporary: String) throws(SystemError) {
        do {
            try rename(temporary, to: path)
        } catch {
            try? unlink(temporary)
            throw error
        }
        try fsyncDirectory(Path.parent(of: path))
    }

    /// The whole of the file at `path` mapped read-only (see ``FileSystem/mapReadOnly(_:count:populate:)``), when
    /// it exists, holds at least `minimumSize` bytes and can be mapped; nil otherwise. The mapping outlives the
    /// descriptor, which is closed; release it with ``FileSystem/unmap(_:)``.
    public func mapFile(_ path: String, minimumSize: Int = 1, populate: Bool = true) -> UnsafeRawBufferPointer? {
        guard let fd = try? open(path, .read) else { return nil }
        defer { try? close(fd) }
        guard let size = try? fstat(fd).size, size >= Int64(max(minimumSize, 1)) else { return nil }
        return try? mapReadOnly(fd, count: Int(size), populate: populate)
    }

    /// Creates a directory and any missing parents, fsyncing each parent that gained an entry.
    public func createDirectories(_ path: String) throws(SystemError) {
        if let status = try stat(path) {
            if status.isDirectory { return }
            throw SystemError(
                .alreadyExists, call: "mkdir", message: "\(path) exists and is not a directory; move it away")
        }
        let parent = Path.parent(of: path)
        if parent != path { try createDirectories(parent) }
        try mkdir(path, mode: 0o755)
        try fsyncDirectory(parent)
    }
}

/// Small helpers for slash-separated paths.
public enum Path {
    /// The directory holding `path` (`.` for a bare name, `/` for a top-level entry).
    public static func parent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        if slash == trimmed.startIndex { return "/" }
        return String(trimmed[..<slash])
    }

    /// `base` and `name` joined by one slash.
    public static func join(_ base: String, _ name: String) -> String {
        base.hasSuffix("/") ? base + name : base + "/" + name
    }
}
