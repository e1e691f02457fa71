import LedgerStore
import LedgerSystem

/// Walks the frames of one segment file in large sequential reads, handing each valid record to a closure
/// in place, and says where and why it stopped.
struct SegmentScanner: ~Copyable {
    /// Why a scan stopped before the end of the file.
    enum Stop: Equatable {
        /// Every byte up to the end of the file was a valid record.
        case end
        /// A frame starts at this offset but the file ends before it does (a torn write).
        case incomplete(offset: Int64)
        /// The bytes at this offset are not a valid record.
        case damaged(offset: Int64, reason: String)
        /// A record at this offset was written by a newer format version.
        case newerVersion(offset: Int64, version: UInt8)
        /// The closure asked to stop before the record at this offset.
        case requested(offset: Int64)
    }

    private let fileSystem: any FileSystem
    private let fd: FileDescriptor
    private let fileSize: Int64
    private var buffer: UnsafeMutableRawBufferPointer

    init(fileSystem: any FileSystem, fd: FileDescriptor, fileSize: Int64, bufferSize: Int = 1 << 20) {
        self.fileSystem = fileSystem
        self.fd = fd
        self.fileSize = fileSize
        let size = Int(min(Int64(bufferSize), max(fileSize, 4096)))
        self.buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// Scans from `offset`, calling `body` with each valid record and its offset; `body` returns false to stop.
    mutating func scan(
        from offset: Int64, checkCRC: Bool = true,
        _ body: (LogRecordView, Int64) throws(LogError) -> Bool
    ) throws(LogError) -> Stop {
        var chunkStart = offset
        var filled = 0
        var position = 0
        while true {
            if chunkStart + Int64(position) >= fileSize { return .end }
            let parsed = RecordCodec.parse(
                UnsafeRawPointer(buffer.baseAddress! + position), available: filled - position, checkCRC: checkCRC)
            switch parsed {
            case .record(let view):
                let at = chunkStart + Int64(position)
                guard try body(view, at) else { return .requested(offset: at) }
                position += view.frameSize
            case .needBytes(let needed):
                let at = chunkStart + Int64(position)
                if at + Int64(needed) > fileSize { return .incomplete(offset: at) }
                if needed > buffer.count {
                    buffer.deallocate()
                    buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: needed * 2, alignment: 16)
                }
                chunkStart = at
                position = 0
                let want = Int(min(Int64(buffer.count), fileSize - at))
                do {
                    filled = try fileSystem.readFully(
                        fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]), at: at)
                } catch {
                    throw LogError.system(error, "reading the log")
                }
                if filled < needed { return .incomplete(offset: at) }
            case .damaged(let reason):
                return .damaged(offset: chunkStart + Int64(position), reason: reason)
            case .newerVersion(let version):
                return .newerVersion(offset: chunkStart + Int64(position), version: version)
            }
        }
    }

    /// Whether any valid record with a seq of at least `minSeq` starts anywhere after `offset`: if so, damage at
    /// `offset` is not a torn tail but damage in the middle of the log.
    static func validRecordExists(
        fileSystem: any FileSystem, fd: FileDescriptor, fileSize: Int64, after offset: Int64, minSeq: UInt64
    ) throws(LogError) -> Bool {
        let start = offset + 1
        guard start < fileSize else { return false }
        let rest: [UInt8]
        do {
            rest = try fileSystem.read(fd, count: Int(fileSize - start), at: start)
        } catch {
            throw LogError.system(error, "reading the log")
        }
        return rest.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return false }
            var position = 0
            while position + LogFormat.frameHeaderSize <= raw.count {
                if case .record(let view) = RecordCodec.parse(base + position, available: raw.count - position),
                    view.seq >= minSeq
                {
                    return true
                }
                position += 1
            }
            return false
        }
    }
}
