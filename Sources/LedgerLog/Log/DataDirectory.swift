import LedgerStore
import LedgerSystem

/// The layout of a data directory:
///
/// ```
/// meta                      format version, environment and app identity, written at the first write
/// LOCK                      the writer's flock; holds the holder's pid and command line
/// log/<20-digit seq>.seg    segments, named by their first record's seq
/// index/<name>              derived files (indexes, snapshots): rebuilt when stale or damaged
/// evidence/pack-<8 digits>  raw signed payloads appended to packs, found by their SHA-256
/// evidence/<2 hex>/<62 hex> raw signed payloads of earlier versions, one file each (still read)
/// lost+found/               bytes cut from a torn tail, kept for inspection
/// ```
struct DataDirectory: Sendable {
    let root: String

    var log: String { Path.join(root, "log") }
    var index: String { Path.join(root, "index") }
    var evidence: String { Path.join(root, "evidence") }
    var lostAndFound: String { Path.join(root, "lost+found") }
    var meta: String { Path.join(root, "meta") }
    var lock: String { Path.join(root, "LOCK") }

    func segment(_ name: String) -> String { Path.join(log, name) }

    /// The segment file names, in seq order.
    func segmentNames(_ fileSystem: any FileSystem) throws(LogError) -> [String] {
        guard (try? fileSystem.stat(log)) != nil else { return [] }
        let names: [String]
        do {
            names = try fileSystem.readDirectory(log)
        } catch {
            throw LogError.system(error, "listing \(log)")
        }
        return names.compactMap { name in LogFormat.firstSeq(segmentName: name).map { (name, $0) } }
            .sorted { $0.1 < $1.1 }.map(\.0)
    }
}

/// The `meta` file: the format version, the environment and the app identity the directory is bound to.
///
/// Three text lines: `ledger-log format 1`, `environment NAME`, and `crc32c HEX` over the first two lines. Then,
/// once an identity is bound, `bundle-id ID`, in production `app-apple-id N`, and `crc32c HEX` over every byte
/// before it: after the first checksum, so that a ledger of an earlier version still reads the file.
struct Meta: Equatable, Sendable {
    var version: UInt8
    var environment: String
    var identity: AppIdentity?

    func encoded() -> [UInt8] {
        let body = Array("ledger-log format \(version)\nenvironment \(environment)\n".utf8)
        var bytes = body + Array("crc32c \(String(CRC32C.checksum(body), radix: 16))\n".utf8)
        if let identity {
            var lines = "bundle-id \(identity.bundleId)\n"
            if let id = identity.appAppleId { lines += "app-apple-id \(id)\n" }
            bytes += Array(lines.utf8)
            bytes += Array("crc32c \(String(CRC32C.checksum(bytes), radix: 16))\n".utf8)
        }
        return bytes
    }

    /// Reads the meta file; nil when it does not exist.
    static func read(_ fileSystem: any FileSystem, _ directory: DataDirectory) throws(LogError) -> Meta? {
        let bytes: [UInt8]?
        do {
            bytes = try fileSystem.readFile(directory.meta)
        } catch {
            throw LogError.system(error, "reading \(directory.meta)")
        }
        guard let bytes else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 3, lines[0].hasPrefix("ledger-log format "), lines[1].hasPrefix("environment "),
            lines[2].hasPrefix("crc32c "), let version = UInt8(lines[0].dropFirst(18))
        else {
            throw LogError(
                .damaged,
                "\(directory.meta) is damaged (unreadable); restore it from a backup or recreate it "
                    + "with the environment named in the segment headers")
        }
        let body = Array("\(lines[0])\n\(lines[1])\n".utf8)
        guard String(CRC32C.checksum(body), radix: 16) == lines[2].dropFirst(7) else {
            throw LogError(.damaged, "\(directory.meta) fails its checksum; restore it from a backup")
        }
        if version > LogFormat.version {
            throw LogError(
                .unsupportedVersion,
                "\(directory.root) was written by log format \(version); this ledger reads up to "
                    + "\(LogFormat.version). Upgrade the ledger")
        }
        return Meta(
            version: version, environment: String(lines[1].dropFirst(12)),
            identity: try identity(lines, directory))
    }

    /// The identity lines after the first checksum (none in a directory bound before identities were recorded).
    private static func identity(_ all: [Substring], _ directory: DataDirectory) throws(LogError) -> AppIdentity? {
        let lines = all.last == "" ? all.dropFirst(3).dropLast() : all.dropFirst(3)
        guard !lines.isEmpty else { return nil }
        let damaged = LogError(
            .damaged,
            "\(directory.meta) is damaged (its identity lines are unreadable); restore it from a backup, or "
                + "remove the lines after the first crc32c line to bind the identity again at the next write")
        guard lines.count == 2 || lines.count == 3, let check = lines.last, check.hasPrefix("crc32c "),
            let bundle = lines.first, bundle.hasPrefix("bundle-id "), bundle.count > 10
        else { throw damaged }
        var appAppleId: Int64?
        if lines.count == 3 {
            let line = lines[lines.startIndex + 1]
            guard line.hasPrefix("app-apple-id "), let id = Int64(line.dropFirst(13)) else { throw damaged }
            appAppleId = id
        }
        let covered = Array(all[..<(lines.endIndex - 1)].map { "\($0)\n" }.joined().utf8)
        guard String(CRC32C.checksum(covered), radix: 16) == check.dropFirst(7) else {
            throw LogError(.damaged, "\(directory.meta) fails its identity checksum; restore it from a backup")
        }
        return AppIdentity(bundleId: String(bundle.dropFirst(10)), appAppleId: appAppleId)
    }
}
