import LedgerStore
import LedgerSystem

/// Opening a data directory: what ``LogOpening`` found, then the indexes, the evidence packs and the writer's
/// maintenance.
extension EventLog {
    /// Opens a log: reads `meta`, walks every segment (a reader: what follows the positions checkpoint), cuts a torn
    /// tail (writer) and loads or rebuilds indexes.
    static func open(
        _ layout: DataDirectory, environment: String?, app: AppIdentity?, writable: Bool, options: LogOptions,
        fileSystem: any FileSystem, clock: @escaping @Sendable () -> Int64, writerLock: WriterLock?
    ) throws(LogError) -> EventLog {
        let opening = try LogOpening.read(
            layout, environment: environment, app: app, writable: writable, options: options, fileSystem: fileSystem)
        let lost = opening.lost
        let log = EventLog(
            directory: layout, fileSystem: fileSystem, options: options, clock: clock, writerLock: writerLock,
            state: opening.state, recovery: opening.recovery, lostRecords: lost)
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
        if writable {
            do {
                // Index the evidence packs, cutting a torn tail off the last one unless a record refers to it.
                try log.recoverEvidence()
            } catch {
                log.state.closed = true
                for segment in log.state.segments { try? fileSystem.close(segment.fd) }
                log.evidencePacks.close()
                throw error
            }
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
