/// A file written in pieces that replaces its target atomically and durably: the pieces go to a temporary file
/// beside the target, which ``commit()`` fsyncs and renames over it (the directory fsynced); ``abandon()``
/// removes it. The target is never seen half written.
public struct DurableFileWriter<System: FileSystem> {
    /// The file to replace.
    public let path: String
    /// How many bytes have been appended.
    public private(set) var size: Int64 = 0
    private let fileSystem: System
    private let temporary: String
    private let fd: FileDescriptor

    /// Creates the temporary file beside `path`.
    public init(_ path: String, in fileSystem: System) throws(SystemError) {
        self.path = path
        self.fileSystem = fileSystem
        temporary = fileSystem.temporaryPath(for: path)
        fd = try fileSystem.open(temporary, OpenOptions(access: .writeOnly, create: true, truncate: true))
    }

    /// Appends `bytes`.
    public mutating func append(_ bytes: [UInt8]) throws(SystemError) {
        try fileSystem.writeAll(fd, bytes, at: size)
        size += Int64(bytes.count)
    }

    /// Makes the file durable and puts it in place of the target.
    public func commit() throws(SystemError) {
        do {
            try fileSystem.fsync(fd)
        } catch {
            abandon()
            throw error
        }
        do {
            try fileSystem.close(fd)
        } catch {
            try? fileSystem.unlink(temporary)
            throw error
        }
        try fileSystem.replaceDurably(path, with: temporary)
    }

    /// Closes and removes the temporary file; the target stays as it was.
    public func abandon() {
        try? fileSystem.close(fd)
        try? fileSystem.unlink(temporary)
    }
}
