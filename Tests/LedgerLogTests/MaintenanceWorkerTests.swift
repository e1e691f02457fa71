import LedgerStore
import LedgerSystem
import Synchronization
import Testing

@testable import LedgerLog

#if canImport(Glibc)
    import Glibc
#endif

/// A file system whose renames into `index/` wait until the gate opens: an index checkpoint that takes as long
/// as the test wants.
final class GatedFileSystem: PassthroughFileSystem, @unchecked Sendable {
    private let gate = ConditionLock()
    private let state = Mutex((open: false, waiting: 0))
    var waiting: Int { state.withLock { $0.waiting } }

    /// Lets every waiting and later rename through.
    func openGate() {
        gate.withLock {
            state.withLock { $0.open = true }
            gate.broadcast()
        }
    }

    override func rename(_ from: String, to: String) throws(SystemError) {
        if to.contains("/index/") {
            gate.withLock {
                state.withLock { $0.waiting += 1 }
                while !state.withLock({ $0.open }) { gate.wait() }
                state.withLock { $0.waiting -= 1 }
            }
        }
        try base.rename(from, to: to)
    }
}

/// Index checkpoints run on the maintenance worker, not on the append leader.
@Suite struct MaintenanceWorkerTests {
    @Test func appendsGoOnWhileTheWorkerWritesACheckpoint() throws {
        let temp = TempDirectory()
        let fileSystem = GatedFileSystem()
        let log = try openWriter(
            temp.data, options: LogOptions(checkpointInterval: 20, clusterMinimum: 0), fileSystem: fileSystem)
        defer {
            fileSystem.openGate()
            log.close()
        }
        try appendEach(log, 1...20)
        // The checkpoint of record 20 is stuck on its first index file; appends must not wait for it.
        let appended = Mutex(0)
        let appender = try startThread(detached: false) {
            for n in 21...40 where (try? log.append(entry(n))) != nil { appended.withLock { $0 += 1 } }
        }
        var waited = 0
        while appended.withLock({ $0 }) < 20 && waited < 10_000 {
            usleep(10_000)
            waited += 10
        }
        #expect(appended.withLock { $0 } == 20, "appends waited for the checkpoint")
        #expect(fileSystem.waiting == 1, "the worker is still writing the checkpoint")
        #expect(log.lock.withLock { log.state.indexes.coveredSeq } == 0)
        fileSystem.openGate()
        pthread_join(appender, nil)
        log.lock.withLock { log.stopMaintenanceLocked() }
        #expect(log.lock.withLock { log.state.indexes.coveredSeq } == 20)
        #expect(log.head.seq == 40)
    }
}
