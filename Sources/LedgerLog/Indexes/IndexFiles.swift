import LedgerStore
import LedgerSystem

/// The index files of `index/` (`Events/README.md`, "Derived files"): the key, subject, components and record
/// positions files a writer keeps for the log's head, and their reading back on open. Never the truth: each is
/// used only when its checksum holds and it matches the log's history.
struct IndexFiles {
    static let keysName = "keys.idx"
    static let subjectsName = "subjects.idx"
    static let positionsName = "positions.idx"
    /// A file earlier versions wrote beside the subject index (the records' components); deleted when seen.
    static let componentsName = "components.idx"

    let fileSystem: any FileSystem
    let layout: DataDirectory

    init(_ fileSystem: any FileSystem, _ layout: DataDirectory) {
        self.fileSystem = fileSystem
        self.layout = layout
    }

    /// The path of index file `name`.
    func path(_ name: String) -> String { Path.join(layout.index, name) }

    /// The positions file, when it is intact and lists at least one record.
    func positions() -> RecordPositions? {
        guard let file = DerivedFile.read(path(Self.positionsName), fileSystem: fileSystem),
            let positions = RecordPositions.decode(file.bytes), let last = positions.entries.last,
            last.lastSeq == file.coveredSeq, last.lastHash == file.headHash
        else { return nil }
        return positions
    }

    /// The persisted indexes, if both files are intact and agree: the indexes, their covered seq and the chain
    /// hash they claim for it (still to be checked against the log).
    func load() -> (KeyIndex, SubjectIndex, UInt64, [UInt8])? {
        guard let (keysFile, subjectsFile) = both(),
            let keys = KeyIndex.decode(keysFile.bytes), let subjects = SubjectIndex.decode(subjectsFile.bytes)
        else { return nil }
        return (keys, subjects, keysFile.coveredSeq, keysFile.headHash)
    }

    /// The record both index files cover and its chain hash, when both are intact and agree (their checksums
    /// checked, the indexes not decoded).
    func coverage() -> (seq: UInt64, hash: [UInt8])? {
        both().map { keys, _ in (keys.coveredSeq, keys.headHash) }
    }

    /// Both index files, when both are intact (their checksums checked) and cover the same record.
    private func both() -> (keys: DerivedFile.Snapshot, subjects: DerivedFile.Snapshot)? {
        guard let keys = DerivedFile.read(path(Self.keysName), fileSystem: fileSystem),
            let subjects = DerivedFile.read(path(Self.subjectsName), fileSystem: fileSystem),
            keys.coveredSeq == subjects.coveredSeq, keys.headHash == subjects.headHash
        else { return nil }
        return (keys, subjects)
    }

    /// Writes the index files of `snapshot`, each durably (temporary file, fsync, rename). Needs no lock, but only
    /// one writer of index files at a time (the lock's holder or the maintenance worker, in turn).
    func write(_ snapshot: IndexSnapshot) throws(LogError) {
        let (covered, hash) = (snapshot.covered, snapshot.hash)
        try DerivedFile.write(
            DerivedFile.Snapshot(coveredSeq: covered, headHash: hash, bytes: snapshot.keys.encoded()),
            to: path(Self.keysName), fileSystem: fileSystem)
        let subjects = snapshot.subjects.encoded()
        try DerivedFile.write(
            DerivedFile.Snapshot(coveredSeq: covered, headHash: hash, bytes: subjects),
            to: path(Self.subjectsName), fileSystem: fileSystem)
        // Earlier versions also kept the records' components here; a rebuild now finds them from the postings.
        try? fileSystem.unlink(path(Self.componentsName))
        // A sealed segment whose last record no longer reads leaves the last positions file as it was: readers
        // then walk what it does not list.
        if let positions = try? RecordPositions(
            snapshot.segments, headSeq: covered, headHash: hash, fileSystem: fileSystem)
        {
            try DerivedFile.write(
                DerivedFile.Snapshot(coveredSeq: covered, headHash: hash, bytes: positions.encoded()),
                to: path(Self.positionsName), fileSystem: fileSystem)
        }
    }
}
