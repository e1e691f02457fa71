import LedgerCrypto
import LedgerSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Distinguishes temporary evidence files written concurrently by one process.
private let evidenceCounter = Atomic<Int>(0)

/// Where one piece of evidence lives: `<root>/<first 2 hex>/<other hex>`, built in one pass over the digest.
struct EvidencePath {
    /// The folder, `<root>/<first 2 hex>`.
    var folder: String
    /// The file.
    var file: String

    private static let digits = Array("0123456789abcdef".utf8)

    init(root: String, digest: [UInt8]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(root.utf8.count + 2 + digest.count * 2 + 1)
        bytes.append(contentsOf: root.utf8)
        if bytes.last != UInt8(ascii: "/") { bytes.append(UInt8(ascii: "/")) }
        var folderEnd = bytes.count
        for (index, byte) in digest.enumerated() {
            bytes.append(Self.digits[Int(byte >> 4)])
            bytes.append(Self.digits[Int(byte & 0xF)])
            if index == 0 {
                folderEnd = bytes.count
                bytes.append(UInt8(ascii: "/"))
            }
        }
        folder = String(decoding: bytes[..<folderEnd], as: UTF8.self)
        file = String(decoding: bytes, as: UTF8.self)
    }
}

/// The evidence folders a log created or found, so later pieces skip the `stat` and `mkdir` of their folder.
final class EvidenceFolders: Sendable {
    private let known = Mutex<Set<String>>([])

    /// Whether `folder` is known to exist.
    func contains(_ folder: String) -> Bool { known.withLock { $0.contains(folder) } }

    /// Records folders that exist.
    func insert(_ folders: Set<String>) {
        guard !folders.isEmpty else { return }
        known.withLock { $0.formUnion(folders) }
    }
}

extension EventLog {
    /// Stores raw evidence (e.g. a signed notification payload) content-addressed by its SHA-256, durably
    /// (file and directory fsynced) before returning the digest. Storing the same bytes again is a no-op.
    /// Store the evidence before appending the record that references it.
    @discardableResult
    public func putEvidence(_ bytes: [UInt8]) throws(LogError) -> [UInt8] {
        try putEvidence(batch: [bytes])[0]
    }

    /// Stores several pieces of evidence durably; returns their digests in order.
    ///
    /// Each piece is written to a temporary file beside its final name, made durable, then renamed, and the
    /// renames made durable. A few pieces get an fsync each; a larger batch is written without per-file
    /// fsyncs and made durable with one `syncfs` before and one after the renames (two journal commits instead
    /// of one per file).
    public func putEvidence(batch: [[UInt8]]) throws(LogError) -> [[UInt8]] {
        try putEvidence(batch: batch, durable: true)
    }

    /// Stores evidence; with `durable: false` the files are written and renamed into place without any sync,
    /// and the caller must append the records that reference them with
    /// ``append(_:syncingEvidenceFirst:)`` and `true`, which makes them durable before the records.
    public func putEvidence(batch: [[UInt8]], durable: Bool) throws(LogError) -> [[UInt8]] {
        guard isWriter else { throw LogError(.notWritable, "this log was opened for reading; open it as the writer") }
        var digests: [[UInt8]] = []
        digests.reserveCapacity(batch.count)
        var pending: [(bytes: [UInt8], path: EvidencePath)] = []
        var seen: Set<String> = []
        do throws(SystemError) {
            for bytes in batch {
                let digest = SHA256.hash(bytes)
                digests.append(digest)
                let path = EvidencePath(root: directory.evidence, digest: digest)
                guard seen.insert(path.file).inserted else { continue }
                if let status = try fileSystem.stat(path.file), status.size == Int64(bytes.count) { continue }
                pending.append((bytes, path))
            }
        } catch {
            throw LogError.system(error, "storing evidence in \(directory.evidence)")
        }
        guard !pending.isEmpty else { return digests }
        let perFile = durable && pending.count < Self.evidenceBatchThreshold
        var written: [(temporary: String, final: String)] = []
        var directories: Set<String> = []
        do throws(SystemError) {
            for item in pending {
                let folder = item.path.folder
                if !directories.contains(folder) && !evidenceFolders.contains(folder) {
                    try fileSystem.createDirectories(folder)
                }
                let number = evidenceCounter.wrappingAdd(1, ordering: .relaxed).newValue
                let temporary = "\(item.path.file).tmp-\(getpid())-\(number)"
                let options = OpenOptions(access: .writeOnly, create: true, truncate: true)
                let fd: FileDescriptor
                do {
                    fd = try fileSystem.open(temporary, options)
                } catch  where error.code == .notFound {
                    // A folder remembered from earlier may have been removed since: create it and try again.
                    try fileSystem.createDirectories(folder)
                    fd = try fileSystem.open(temporary, options)
                }
                do throws(SystemError) {
                    try fileSystem.writeAll(fd, item.bytes, at: 0)
                    if perFile { try fileSystem.fsync(fd) }
                    try fileSystem.close(fd)
                } catch {
                    try? fileSystem.close(fd)
                    try? fileSystem.unlink(temporary)
                    throw error
                }
                written.append((temporary, item.path.file))
                directories.insert(folder)
            }
            if durable && !perFile { try fileSystem.syncFileSystem(directory.evidence) }
            for file in written { try fileSystem.rename(file.temporary, to: file.final) }
            if perFile {
                for folder in directories { try fileSystem.fsyncDirectory(folder) }
            } else if durable {
                try fileSystem.syncFileSystem(directory.evidence)
            }
        } catch {
            for file in written { try? fileSystem.unlink(file.temporary) }
            throw LogError.system(error, "storing evidence in \(directory.evidence)")
        }
        evidenceFolders.insert(directories)
        return digests
    }

    /// From this many new pieces on, a batch is made durable with `syncfs` instead of an fsync per file.
    static let evidenceBatchThreshold = 8

    /// The evidence with this SHA-256, or nil when none is stored.
    /// - Throws: ``LogError/Code/evidenceDamaged`` when the stored bytes no longer hash to their name.
    public func evidence(_ sha256: [UInt8]) throws(LogError) -> [UInt8]? {
        let path = evidencePath(sha256)
        let bytes: [UInt8]?
        do {
            bytes = try fileSystem.readFile(path)
        } catch {
            throw LogError.system(error, "reading evidence \(path)")
        }
        guard let bytes else { return nil }
        guard SHA256.hash(bytes) == sha256 else {
            throw LogError(
                .evidenceDamaged, "evidence \(path) no longer matches its SHA-256; restore it from a backup")
        }
        return bytes
    }

    /// Where the evidence with this digest lives: `evidence/<first 2 hex>/<other 62 hex>`.
    public func evidencePath(_ sha256: [UInt8]) -> String {
        EvidencePath(root: directory.evidence, digest: sha256).file
    }
}
