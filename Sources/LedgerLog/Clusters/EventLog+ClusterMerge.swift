import LedgerStore
import LedgerSystem

/// Merging two neighbouring cluster files into one, so a log keeps a few of them (each at least twice the size
/// of the next) however long it grows, and a subject's records spread over a few runs, not one per file.
extension EventLog {
    /// Writes the cluster file of `older` and `newer` together (records `older.from + 1 … newer.through`; `newer`
    /// starts where `older` ends): their runs merged by hash in one streaming pass, each hash's frames from
    /// `older` then from `newer`, every frame's checksum and seq checked as it is copied. Returns its path.
    /// - Throws: ``LogError``: `damaged` when a file's data or a frame does not check (the caller then drops that
    ///   file, and the writer copies its records from the log again), or a write failure.
    static func mergeClusters(
        _ fileSystem: any FileSystem, _ older: SubjectCluster, _ newer: SubjectCluster, indexDirectory: String
    ) throws(LogError) -> String {
        precondition(older.through == newer.from, "only neighbouring cluster files merge")
        let damaged = LogError(
            .damaged, "a cluster file's data does not check; its records are copied from the log again")
        guard let olderRuns = older.runs(), let newerRuns = newer.runs() else { throw damaged }
        // The merged runs: indexes into each file's runs (-1: none), in ascending hash order.
        var merged: [(hash: UInt64, older: Int, newer: Int)] = []
        merged.reserveCapacity(max(olderRuns.count, newerRuns.count))
        var (o, n) = (0, 0)
        while o < olderRuns.count || n < newerRuns.count {
            let olderHash = o < olderRuns.count ? olderRuns[o].hash : .max
            let newerHash = n < newerRuns.count ? newerRuns[n].hash : .max
            if o < olderRuns.count && (n == newerRuns.count || olderHash < newerHash) {
                merged.append((olderHash, o, -1))
                o += 1
            } else if o == olderRuns.count || newerHash < olderHash {
                merged.append((newerHash, -1, n))
                n += 1
            } else {
                merged.append((olderHash, o, n))
                (o, n) = (o + 1, n + 1)
            }
        }
        var runs: [(hash: UInt64, offset: UInt64)] = []
        runs.reserveCapacity(merged.count)
        var offset: UInt64 = 0
        for run in merged {
            runs.append((run.hash, offset))
            offset += UInt64(SubjectCluster.runHeaderSize)
            if run.older >= 0 { offset += UInt64(olderRuns[run.older].frames.count) }
            if run.newer >= 0 { offset += UInt64(newerRuns[run.newer].frames.count) }
        }
        let header = SubjectCluster.headerAndTable(
            from: older.from, through: newer.through, hash: newer.throughHash, runs: runs, dataLength: offset)
        return try ClusterFileWriter.write(
            fileSystem, indexDirectory: indexDirectory, from: older.from, through: newer.through, header: header
        ) { (file) throws(LogError) in
            for run in merged {
                let olderFrames =
                    run.older >= 0 ? olderRuns[run.older].frames : UnsafeRawBufferPointer(start: nil, count: 0)
                let newerFrames =
                    run.newer >= 0 ? newerRuns[run.newer].frames : UnsafeRawBufferPointer(start: nil, count: 0)
                // Each frame is checked as it is copied: a failure leaves no file behind.
                guard framesCheck(olderFrames, in: older), framesCheck(newerFrames, in: newer) else { throw damaged }
                try file.append(run.hash)
                try file.append(UInt64(olderFrames.count + newerFrames.count))
                try file.append(olderFrames)
                try file.append(newerFrames)
            }
        }
    }

    /// Whether a run's frames are whole and intact, each a record of the file's range, ascending.
    private static func framesCheck(_ frames: UnsafeRawBufferPointer, in cluster: SubjectCluster) -> Bool {
        guard var at = frames.baseAddress else { return true }
        let end = at + frames.count
        var previous = cluster.from
        while at < end {
            guard case .record(let view) = RecordCodec.parse(at, available: end - at), view.seq > previous,
                cluster.covers(view.seq)
            else { return false }
            previous = view.seq
            at += view.frameSize
        }
        return true
    }

    /// The last two cluster files when the older is at most twice the newer's size: merging them keeps the sizes
    /// falling at least geometrically from the first file to the last. Holding the lock.
    var mergeCandidateLocked: (older: SubjectCluster, newer: SubjectCluster)? {
        guard state.clusters.count >= 2 else { return nil }
        let older = state.clusters[state.clusters.count - 2]
        let newer = state.clusters[state.clusters.count - 1]
        return older.recordSpan <= 2 * newer.recordSpan ? (older, newer) : nil
    }

    /// Merges the last two cluster files while they are close in size (``mergeCandidateLocked``). Not holding the
    /// lock; only one merge or build runs at a time (`clusterBuilding`). A file whose data does not check is
    /// dropped (deleted; the writer copies its records from the log again).
    func mergeClusters() {
        while let (older, newer) = lock.withLock({ mergeCandidateLocked }) {
            let merged: SubjectCluster?
            do {
                let path = try Self.mergeClusters(fileSystem, older, newer, indexDirectory: directory.index)
                merged = Self.mapCluster(
                    fileSystem, path: path, from: older.from, through: newer.through, hash: newer.throughHash)
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
    func clusterPath(_ cluster: SubjectCluster) -> String {
        Path.join(directory.index, SubjectCluster.fileName(from: cluster.from, through: cluster.through))
    }
}
