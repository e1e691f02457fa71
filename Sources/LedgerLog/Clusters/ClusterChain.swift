/// The cluster files a log holds (see ``SubjectCluster``), oldest first: a chain in which each file holds the
/// records after the previous one's, and the writer's policy for growing it.
struct ClusterChain {
    /// The files, oldest first.
    private(set) var files: [SubjectCluster]

    /// A chain of `files`, oldest first, each starting where the previous one ends.
    init(_ files: [SubjectCluster] = []) { self.files = files }

    /// The seq through which the files hold the log (0: none).
    var clusteredSeq: UInt64 { files.last?.through ?? 0 }

    /// How many records must be in no cluster file before the writer adds one: at least `minimum`, and half as
    /// many as the files hold already (up to half a file's most), so that files grow with the log instead of
    /// cutting each subject's records into many small ones.
    func threshold(minimum: Int) -> UInt64 {
        max(UInt64(minimum), min(clusteredSeq, ClusterFiles.fileRecords) / 2)
    }

    /// The last two files when the older is at most twice the newer's size: merging them keeps the sizes falling
    /// at least geometrically from the first file to the last.
    var mergeCandidate: (older: SubjectCluster, newer: SubjectCluster)? {
        guard files.count >= 2 else { return nil }
        let older = files[files.count - 2]
        let newer = files[files.count - 1]
        return older.recordSpan <= 2 * newer.recordSpan ? (older, newer) : nil
    }

    /// Adds the file holding the records after the last one's.
    mutating func append(_ file: SubjectCluster) { files.append(file) }

    /// Replaces the last two files by the one they were merged into; nil drops them.
    mutating func replaceLastTwo(with merged: SubjectCluster?) {
        files.removeLast(2)
        if let merged { files.append(merged) }
    }

    /// Empties the chain; returns the files it held.
    mutating func removeAll() -> [SubjectCluster] {
        defer { files = [] }
        return files
    }
}
