import LedgerStore
import LedgerSystem

/// The cluster files (see ``SubjectCluster``): written by the writer, read by every reader of the log.
///
/// They cover the log from its first record in a chain of files, each the records after the previous file's:
/// `cluster-<from>-<through>` holds records `from + 1 … through`. The writer adds a file for the records no file
/// holds yet at a checkpoint, in the background and off the lock (the records it copies never change), once there
/// are enough of them (``ClusterChain/threshold(minimum:)``), and merges the last files while they are close in
/// size (`EventLog+ClusterMerge.swift`); at close it copies what is left once there are
/// ``LogOptions/clusterMinimum``. `rebuildIndexes` writes them all again.
extension EventLog {
    /// Loads the cluster files (the writer also deletes the unused ones). Holding the lock.
    func loadClustersLocked() {
        let (chain, unused) = clusterFiles.load(state.segments, headSeq: state.head.seq)
        state.clusters = ClusterChain(chain)
        if isWriter {
            for name in unused { try? fileSystem.unlink(Path.join(directory.index, name)) }
        }
    }

    /// Adds cluster files until fewer records than ``ClusterChain/threshold(minimum:)`` are in none (`finishing`,
    /// at close and for a rebuild: fewer than ``LogOptions/clusterMinimum``), merging the last two after each while
    /// they are close in size when `merging` (see ``mergeClusters()``), then clears `maintaining` (which the caller
    /// set), ending the maintenance worker's turn. A failed build stops it and is returned (the next checkpoint
    /// tries again).
    @discardableResult
    func clusterRecords(finishing: Bool, merging: Bool = true) -> LogError? {
        var failure: LogError?
        while true {
            let job = lock.withLock { () -> (segments: [Segment], from: UInt64, through: UInt64, hash: [UInt8])? in
                let from = state.clusters.clusteredSeq
                let threshold =
                    finishing
                    ? UInt64(options.clusterMinimum) : state.clusters.threshold(minimum: options.clusterMinimum)
                guard !state.closed, state.head.seq > from, state.head.seq - from >= threshold else { return nil }
                let through = min(state.head.seq, from + ClusterFiles.fileRecords)
                let hash =
                    through == state.head.seq
                    ? state.head.hash : (try? SegmentReader.readRecord(fileSystem, state.segments, seq: through))?.hash
                return hash.map { (state.segments, from, through, $0) }
            }
            guard let job else { break }
            do throws(LogError) {
                let path = try clusterFiles.write(job.segments, from: job.from, through: job.through, hash: job.hash)
                guard let cluster = clusterFiles.map(path: path, from: job.from, through: job.through, hash: job.hash)
                else {
                    // (A file system that does not map files: the copies would never be read.)
                    try? fileSystem.unlink(path)
                    throw LogError(.io, "the cluster file \(path) just written does not map and check")
                }
                lock.withLock { state.clusters.append(cluster) }
            } catch {
                failure = error
                break
            }
            if merging { mergeClusters() }
        }
        lock.withLock {
            state.maintaining = false
            lock.broadcast()
        }
        return failure
    }

    /// Deletes every cluster file (`ledger rebuild` then writes them again). Holding the lock, with no build
    /// running.
    func dropClustersLocked() {
        for cluster in state.clusters.removeAll() { try? fileSystem.unlink(clusterFiles.path(of: cluster)) }
    }
}
