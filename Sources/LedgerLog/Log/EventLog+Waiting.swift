import LedgerStore
import LedgerSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension EventLog {
    /// Waits until the head passes `seq` (a record after it is durable) or `timeoutMillis` elapse, and returns the
    /// head seq then. For long-polling feeds (`GET /v1/events?after=SEQ&wait=S`) in the writer's process.
    public func waitForHead(after seq: UInt64, timeoutMillis: Int) -> UInt64 {
        let deadline = SystemClock.wallDeadline(microseconds: timeoutMillis * 1_000)
        lock.lock()
        defer { lock.unlock() }
        while state.head.seq <= seq && !state.closed {
            if !lock.wait(until: deadline) { break }
        }
        return state.head.seq
    }

    /// Writes the index files now (they are also written at close and every
    /// ``LogOptions/checkpointInterval`` records), so that the next open has less of the log to index; and starts
    /// writing a cluster file in the background when ``LogOptions/clusterMinimum`` records are in none.
    public func checkpoint() throws(LogError) {
        guard isWriter else { throw LogError(.notWritable, "this log was opened for reading; open it as the writer") }
        try lock.withLock { () throws(LogError) in
            guard !state.closed else { throw Self.closedError }
            stopMaintenanceLocked()
            guard !state.closed else { throw Self.closedError }
            try writeIndexesLocked()
            startMaintenanceLocked(checkpoint: false)
        }
    }
}
