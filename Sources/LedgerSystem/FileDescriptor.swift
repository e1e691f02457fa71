/// An open file descriptor, as handed out by a ``FileSystem``.
///
/// A plain value: it does not close itself. Whoever opened it closes it once, through the same file system.
public struct FileDescriptor: Hashable, Sendable, CustomStringConvertible {
    /// The raw descriptor number.
    public let rawValue: Int32

    /// Wraps a raw descriptor number.
    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    public var description: String { "fd \(rawValue)" }
}

/// How to open a file.
public struct OpenOptions: Hashable, Sendable {
    /// Reading, writing or both.
    public enum Access: Hashable, Sendable {
        /// Read only.
        case readOnly
        /// Write only.
        case writeOnly
        /// Read and write.
        case readWrite
    }

    /// Reading, writing or both.
    public var access: Access
    /// Create the file when it does not exist.
    public var create: Bool
    /// Fail when the file already exists (with ``create``).
    public var exclusive: Bool
    /// Cut the file to zero bytes on open.
    public var truncate: Bool
    /// Open a directory (for fsyncing it).
    public var directory: Bool
    /// Permission bits for a created file.
    public var mode: UInt32

    /// Creates options; by default read-only.
    public init(
        access: Access = .readOnly, create: Bool = false, exclusive: Bool = false, truncate: Bool = false,
        directory: Bool = false, mode: UInt32 = 0o644
    ) {
        self.access = access
        self.create = create
        self.exclusive = exclusive
        self.truncate = truncate
        self.directory = directory
        self.mode = mode
    }

    /// Read an existing file.
    public static let read = OpenOptions()
    /// Read and write an existing file.
    public static let readWrite = OpenOptions(access: .readWrite)
    /// Read and write, creating the file when missing.
    public static let createReadWrite = OpenOptions(access: .readWrite, create: true)
    /// Create a new file that must not exist yet.
    public static let createNew = OpenOptions(access: .readWrite, create: true, exclusive: true)
    /// Open a directory so that it can be fsynced.
    public static let directoryOnly = OpenOptions(directory: true)
}

/// What `stat` tells about a path.
public struct FileStatus: Hashable, Sendable {
    /// Size in bytes.
    public var size: Int64
    /// Whether the path is a directory.
    public var isDirectory: Bool

    /// Creates a status.
    public init(size: Int64, isDirectory: Bool) {
        self.size = size
        self.isDirectory = isDirectory
    }
}
