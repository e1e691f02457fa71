import LedgerStore
import LedgerSystem

/// Writes one cluster file (``SubjectCluster``) atomically and durably: its header and table, then the data
/// appended in order through a buffer, into a temporary file that is fsynced and renamed into place (the
/// directory fsynced). Nothing is left behind when it fails.
struct ClusterFileWriter: ~Copyable {
    private let fileSystem: any FileSystem
    private let fd: FileDescriptor
    private var offset: Int64
    private let buffer: UnsafeMutableRawBufferPointer
    private var buffered = 0

    /// Appends of fewer bytes than this are gathered into one write.
    private static let bufferSize = 4 << 20

    private init(fileSystem: any FileSystem, fd: FileDescriptor, offset: Int64) {
        self.fileSystem = fileSystem
        self.fd = fd
        self.offset = offset
        self.buffer = .allocate(byteCount: Self.bufferSize, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// Writes the file of records `from + 1 … through` in `indexDirectory`: `header` (header and table), then
    /// whatever `body` appends. Returns its path.
    static func write(
        _ fileSystem: any FileSystem, indexDirectory: String, from: UInt64, through: UInt64, header: [UInt8],
        _ body: (inout ClusterFileWriter) throws(LogError) -> Void
    ) throws(LogError) -> String {
        let path = Path.join(indexDirectory, SubjectCluster.fileName(from: from, through: through))
        let temporary = fileSystem.temporaryPath(for: path)
        let fd: FileDescriptor
        do {
            try fileSystem.createDirectories(indexDirectory)
            fd = try fileSystem.open(temporary, OpenOptions(access: .writeOnly, create: true, truncate: true))
        } catch {
            throw LogError.system(error, "writing the cluster file \(path)")
        }
        do throws(LogError) {
            do {
                try fileSystem.writeAll(fd, header, at: 0)
            } catch {
                throw LogError.system(error, "writing the cluster file \(path)")
            }
            var writer = ClusterFileWriter(fileSystem: fileSystem, fd: fd, offset: Int64(header.count))
            try body(&writer)
            try writer.flush()
            do {
                try fileSystem.fsync(fd)
                try fileSystem.close(fd)
            } catch {
                throw LogError.system(error, "writing the cluster file \(path)")
            }
        } catch {
            try? fileSystem.close(fd)
            try? fileSystem.unlink(temporary)
            throw error
        }
        do {
            try fileSystem.replaceDurably(path, with: temporary)
        } catch {
            throw LogError.system(error, "writing the cluster file \(path)")
        }
        return path
    }

    /// Appends bytes to the data.
    mutating func append(_ bytes: UnsafeRawBufferPointer) throws(LogError) {
        if buffered + bytes.count > buffer.count { try flush() }
        if bytes.count >= buffer.count {
            try writeOut(bytes)
            return
        }
        UnsafeMutableRawBufferPointer(rebasing: buffer[buffered..<(buffered + bytes.count)]).copyMemory(from: bytes)
        buffered += bytes.count
    }

    /// Appends an integer, little-endian.
    mutating func append(_ value: UInt64) throws(LogError) {
        try withUnsafeBytes(of: value.littleEndian) { (bytes) throws(LogError) in try append(bytes) }
    }

    private mutating func flush() throws(LogError) {
        guard buffered > 0 else { return }
        try writeOut(UnsafeRawBufferPointer(rebasing: buffer[0..<buffered]))
        buffered = 0
    }

    private mutating func writeOut(_ bytes: UnsafeRawBufferPointer) throws(LogError) {
        do {
            try fileSystem.writeAll(fd, bytes, at: offset)
        } catch {
            throw LogError.system(error, "writing a cluster file")
        }
        offset += Int64(bytes.count)
    }
}
