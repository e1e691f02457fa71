import LedgerSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One `fdatasync` of the evidence packs (``EvidenceStore/sync()``) run on a helper thread, so that a group
/// commit's leader writes and syncs the segment meanwhile instead of after it: the two flushes overlap, and the
/// batch costs about one flush instead of two in a row. The leader acknowledges the batch only once both are
/// durable (``wait()``); the open's recovery cuts the records of a last, unacknowledged batch whose evidence did
/// not survive a crash (see `Events/README.md`, "Recovery on open").
final class EvidenceSync: @unchecked Sendable {
    // @unchecked Sendable: `failure` is written by the helper thread before it ends and read by the leader only
    // after joining it, which orders the write before the read.
    private var failure: SystemError?
    private var thread: pthread_t?

    private init() {}

    /// Starts syncing `packs` on a new thread; nil when no thread could be started (the caller then syncs itself,
    /// before the records).
    static func start(_ packs: EvidenceStore) -> EvidenceSync? {
        let sync = EvidenceSync()
        do throws(SystemError) {
            sync.thread = try startThread(detached: false) {
                do throws(SystemError) {
                    try packs.sync()
                } catch {
                    sync.failure = error
                }
            }
        } catch {
            return nil
        }
        return sync
    }

    /// Waits for the sync to end; returns its error, nil when the evidence is durable. Calling it again returns
    /// the same answer.
    @discardableResult
    func wait() -> SystemError? {
        if let thread {
            joinThread(thread)
            self.thread = nil
        }
        return failure
    }
}
