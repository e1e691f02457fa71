import LedgerStore
import LedgerSystem

/// Opening a data directory: what ``LogOpening`` found, then the indexes, the evidence packs and the writer's
/// maintenance.
extension EventLog {
    /// Opens a log: reads `meta`, walks every segment (a reader: what follows the positions checkpoint), cuts a torn
    /// tail (writer) and loads or rebuilds indexes.
    static func open(
        _ layout: DataDirectory, environment: String?, app: AppIdentity?, writable: Bool, options: LogOptions,
        fileSystem: any FileSystem, clock: @escaping @Sendable () -> Int64, writerLock: WriterLock?,
        recovered: RecoveryReport? = nil
    ) throws(LogError) -> EventLog {
        let opening = try LogOpening.read(
            layout, environment: environment, app: app, writable: writable, options: options, fileSystem: fileSystem)
        let lost = opening.lost
        let log = EventLog(
            directory: layout, fileSystem: fileSystem, options: options, clock: clock, writerLock: writerLock,
            state: opening.state, recovery: recovered ?? opening.recovery, lostRecords: lost)
        if !writable {
            log.state.indexes.ready = false
        } else if let indexes = opening.indexes {
            log.state.indexes = indexes
        } else {
            do {
                try log.lock.withLock { () throws(LogError) in try log.rebuildIndexesLocked() }
            } catch {
                // The caller releases the writer lock; mark closed so `deinit` does not release it again.
                log.state.closed = true
                for segment in log.state.segments { try? fileSystem.close(segment.fd) }
                throw error
            }
        }
        var cut: RecoveryReport?
        if writable {
            do {
                // Records of a last, unacknowledged batch whose evidence a crash lost are cut first (once:
                // `recovered` says they were), and the directory opened again for the log as it now is.
                if recovered == nil { cut = try log.cutUnbackedRecords() }
                // Index the evidence packs, cutting a torn tail off the last one unless a record refers to it.
                if cut == nil { try log.recoverEvidence() }
            } catch {
                log.state.closed = true
                for segment in log.state.segments { try? fileSystem.close(segment.fd) }
                log.evidencePacks.close()
                throw error
            }
        }
        if let cut {
            log.state.closed = true
            for segment in log.state.segments { try? fileSystem.close(segment.fd) }
            log.evidencePacks.close()
            return try open(
                layout, environment: environment, app: app, writable: writable, options: options,
                fileSystem: fileSystem, clock: clock, writerLock: writerLock, recovered: cut)
        }
        if writable && (log.state.head.seq - log.state.indexes.coveredSeq >= 10_000 || lost != nil) {
            log.lock.withLock { try? log.writeIndexesLocked() }
        }
        if writable {
            log.lock.withLock {
                log.loadClustersLocked()
                log.startMaintenanceLocked(checkpoint: false)
            }
        }
        return log
    }
}
