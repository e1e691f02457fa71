import LedgerStore
import LedgerSystem

/// What the index files of one head hold: taken holding the lock, written without it.
struct IndexSnapshot {
    var covered: UInt64
    var hash: [UInt8]
    var keys: KeyIndex
    var subjects: SubjectIndex
    var segments: [Segment]
}

/// The maintenance worker: index checkpoints and cluster files, off the append path.
///
/// Its lifecycle is `state.maintaining`: idle, or the worker's turn (one at a time). After a batch that makes a
/// checkpoint due, the leader takes a snapshot of the indexes (copied on write: free) and starts the worker,
/// which writes the index files, records how far they cover, then adds the cluster files that are due, and ends
/// its turn; appends go on meanwhile. `close`, `checkpoint` and `rebuildIndexes` wait for the turn to end
/// (``stopMaintenanceLocked()``) before they write index or cluster files themselves.
extension EventLog {
    /// Starts the worker when no turn is running and there is work: the index files of the current head
    /// (`checkpoint`), or cluster files (``ClusterChain/threshold(minimum:)`` records in none). Holding the lock.
    func startMaintenanceLocked(checkpoint: Bool) {
        guard isWriter, !state.closed, !state.maintaining else { return }
        let clustersDue =
            options.clusterMinimum > 0
            && state.head.seq - state.clusters.clusteredSeq >= state.clusters.threshold(minimum: options.clusterMinimum)
        guard checkpoint || clustersDue else { return }
        let snapshot = checkpoint ? indexSnapshotLocked() : nil
        state.maintaining = true
        do {
            try startThread(detached: true) { [self] in maintain(snapshot) }
        } catch {
            // No thread to be had: the checkpoint is written here, as the leader's; the clusters wait.
            state.maintaining = false
            if checkpoint { try? writeIndexesLocked() }
        }
    }

    /// The worker's turn: the index files of `snapshot`, then the cluster files due, then the turn ends. A failed
    /// write leaves the files as they were (the next checkpoint tries again).
    private func maintain(_ snapshot: IndexSnapshot?) {
        if let snapshot, (try? indexFiles.write(snapshot)) != nil {
            lock.withLock { state.indexes.coveredSeq = max(state.indexes.coveredSeq, snapshot.covered) }
        }
        if options.clusterMinimum > 0 {
            clusterRecords(finishing: false)
        } else {
            lock.withLock {
                state.maintaining = false
                lock.broadcast()
            }
        }
    }

    /// Waits until the worker's turn ends (a caller that must keep a new one from starting then sets
    /// `state.maintaining` itself). Holding the lock, which the wait releases meanwhile.
    func stopMaintenanceLocked() {
        while state.maintaining { lock.wait() }
    }
}
