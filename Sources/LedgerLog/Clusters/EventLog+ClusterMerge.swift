import LedgerStore
import LedgerSystem

/// The writer's merging of its last two cluster files while they are close in size, so a log keeps a few of them
/// (each at least twice the size of the next) however long it grows, and a subject's records spread over a few
/// runs, not one per file.
extension EventLog {
    /// Merges the last two cluster files while they are close in size (``ClusterChain/mergeCandidate``). Not
    /// holding the lock; only one merge or build runs at a time (the maintenance worker's turn, `maintaining`). A
    /// file whose data does not check is dropped (deleted; the writer copies its records from the log again).
    func mergeClusters() {
        while let (older, newer) = lock.withLock({ state.clusters.mergeCandidate }) {
            let merged: SubjectCluster?
            do {
                let path = try clusterFiles.merge(older, newer)
                merged = clusterFiles.map(path: path, from: older.from, through: newer.through, hash: newer.throughHash)
            } catch  where error.code == .damaged {
                // Drop both: which one failed does not matter much, and the log has every record.
                lock.withLock { state.clusters.replaceLastTwo(with: nil) }
                for cluster in [older, newer] { try? fileSystem.unlink(clusterFiles.path(of: cluster)) }
                return
            } catch {
                return
            }
            guard let merged else { return }
            lock.withLock { state.clusters.replaceLastTwo(with: merged) }
            for cluster in [older, newer] { try? fileSystem.unlink(clusterFiles.path(of: cluster)) }
        }
    }
}
