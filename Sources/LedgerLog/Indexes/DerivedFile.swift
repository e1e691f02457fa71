import LedgerStore
import LedgerSystem

/// A file derived from the log (an index, a projection snapshot): a checksummed header saying which log state it
/// was derived from, then the content.
///
/// Layout (72-byte header, little-endian): magic `LEDGRDRV` (8), version (1), zero (7), covered seq (8),
/// the chain hash of record `covered seq` (32; the genesis hash when 0), content length (8), CRC-32C of header
/// bytes 0..<64 and the content (4), zero (4); then the content.
///
/// A derived file is never the truth: when it fails its checksum, or its covered seq and hash do not match the
/// log, it is ignored and rebuilt. Written atomically and durably (temporary file, fsync, rename, fsync dir).
public enum DerivedFile {
    /// What a derived file holds.
    public typealias Snapshot = DerivedSnapshot

    private static let magic = Array("LEDGRDRV".utf8)
    static let headerSize = 72

    /// The file's bytes for a snapshot.
    static func encode(_ snapshot: Snapshot) -> [UInt8] {
        var bytes = magic
        bytes.reserveCapacity(headerSize + snapshot.bytes.count)
        bytes.append(1)
        bytes.append(contentsOf: repeatElement(0, count: 7))
        bytes.appendLE(snapshot.coveredSeq)
        bytes.append(contentsOf: snapshot.headHash.count == 32 ? snapshot.headHash : [UInt8](repeating: 0, count: 32))
        bytes.appendLE(UInt64(snapshot.bytes.count))
        let crc = bytes.withUnsafeBytes { header in
            snapshot.bytes.withUnsafeBytes { CRC32C.update(CRC32C.update(0, header), $0) }
        }
        bytes.appendLE(crc)
        bytes.appendLE(UInt32(0))
        bytes.append(contentsOf: snapshot.bytes)
        return bytes
    }

    /// The snapshot in a file's bytes, or nil when they are damaged or not a derived file.
    static func decode(_ bytes: [UInt8]) -> Snapshot? {
        bytes.withUnsafeBytes { file -> Snapshot? in
            guard let content = intactContent(of: file), let base = file.baseAddress else { return nil }
            return Snapshot(coveredSeq: base.le64(16), headHash: Array(file[24..<56]), bytes: Array(content))
        }
    }

    /// The content of a derived file's bytes, in place, when they are intact and cover exactly `coveredSeq` with
    /// chain hash `headHash`; nil otherwise.
    static func content(of file: UnsafeRawBufferPointer, coveredSeq: UInt64, headHash: [UInt8])
        -> UnsafeRawBufferPointer?
    {
        // What it covers first: a stale file is refused without checksumming its content.
        guard file.count >= headerSize, let base = file.baseAddress, base.le64(16) == coveredSeq,
            file[24..<56].elementsEqual(headHash)
        else { return nil }
        return intactContent(of: file)
    }

    /// The content of a derived file's bytes, in place, when the header is a derived file's and the checksum over
    /// header and content holds; nil otherwise.
    private static func intactContent(of file: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard file.count >= headerSize, let base = file.baseAddress, file[0..<8].elementsEqual(magic), file[8] == 1,
            base.le64(56) == UInt64(file.count - headerSize)
        else { return nil }
        let content = UnsafeRawBufferPointer(rebasing: file[headerSize...])
        let crc = CRC32C.update(CRC32C.update(0, UnsafeRawBufferPointer(rebasing: file[0..<64])), content)
        return crc == base.le32(64) ? content : nil
    }

    /// Writes a derived file atomically and durably.
    public static func write(
        _ snapshot: Snapshot, to path: String, fileSystem: any FileSystem = PosixFileSystem()
    ) throws(LogError) {
        do {
            try fileSystem.createDirectories(Path.parent(of: path))
            try fileSystem.writeFileDurably(path, encode(snapshot))
        } catch {
            throw LogError.system(error, "writing \(path)")
        }
    }

    /// Reads a derived file; nil when it is missing or damaged (its checksum is not checked against the log here:
    /// use ``EventLog/readDerived(_:)`` for that).
    public static func read(_ path: String, fileSystem: any FileSystem = PosixFileSystem()) -> Snapshot? {
        guard let bytes = try? fileSystem.readFile(path) else { return nil }
        return decode(bytes)
    }
}
