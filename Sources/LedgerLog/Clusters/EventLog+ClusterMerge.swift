import LedgerStore
import LedgerSystem

/// The writer's merging of its last two cluster files while they are close in size, so a log keeps a few of them
/// (each at least twice the size of the next) however long it grows, and a subject's records spread over a few
/// runs, not one per file.
extension EventLog {
    /// The last two cluster files when the older is at most twice the newer's size: merging them keeps the sizes
    /// falling at least geometrically from the first file to the last. Holding the lock.
    var mergeCandidateLocked: (older: SubjectCluster, newer: SubjectCluster)? {
        guard state.clusters.count >= 2 else { return nil }
        let older = state.clusters[state.clusters.count - 2]
        let newer = state.clusters[state.clusters.count - 1]
        return older.recordSpan <= 2 * newer.recordSpan ? (older, newer) : nil
    }

    /// Merges the last two cluster files while they are close in size (``mergeCandidateLocked``). Not holding the
    /// lock; only one merge or build runs at a time (the maintenance worker's turn, `maintaining`). A file whose data does not check is
    /// dropped (deleted; the writer copies its records from the log again).
    func mergeClusters() {
        while let (older, newer) = lock.withLock({ mergeCandidateLocked }) {
            let merged: SubjectCluster?
            do {
                let path = try clusterFiles.merge(older, newer)
                merged = clusterFiles.map(path: path, from: older.from, through: newer.through, hash: newer.throughHash)
            } catch  where error.code == .damaged {
                // Drop both: which one failed does not matter much, and the log has every record.
                lock.withLock { state.clusters.removeLast(2) }
                for cluster in [older, newer] { try? fileSystem.unlink(clusterPath(cluster)) }
                return
            } catch {
                return
            }
            guard let merged else { return }
            lock.withLock {
                state.clusters.removeLast(2)
                state.clusters.append(merged)
            }
            for cluster in [older, newer] { try? fileSystem.unlink(clusterPath(cluster)) }
        }
    }

    /// Where a cluster file of this log lives.
    func clusterPath(_ cluster: SubjectCluster) -> String { clusterFiles.path(of: cluster) }
}
