import LedgerStore
import LedgerSystem

/// The subject index (`record_subjects`), filled after the appends.
///
/// An append commits its records alone; a writer then indexes their subject keys in turns on a thread of its own,
/// each pass one statement that indexes the next records after `meta.subjects_through` and moves that mark past
/// them. Reads take the index up to the mark and the records after it by their own `subject_keys` (a range of
/// the primary key), in one snapshot, so an answer never misses a record, however far the index lags. Writers of
/// several processes take turns on the mark's row; `close()` indexes what is left, and a writer opened on a
/// ledger with records past the mark (a process stopped before its turn ended) starts a turn at once. The index
/// costs the server as much as before; the append no longer waits for it (`docs/benchmarks.md`).
extension PostgresStore {
    /// The most records one pass indexes (one statement, one transaction).
    static let subjectIndexPass: Int64 = 50_000

    /// Starts an indexing turn when none is running; when one is, it runs one more pass before it ends.
    func scheduleSubjectIndexing() {
        guard isWriter, subjectIndexer.requestTurn() else { return }
        do {
            try startThread(detached: true) { [self] in
                repeat {
                    _ = try? catchUpSubjectIndex()
                } while subjectIndexer.passEnded()
            }
        } catch {
            // No thread to be had: the next append tries again; reads find the records by their keys meanwhile.
            subjectIndexer.abandonTurn()
        }
    }

    /// Indexes every record after the subject index's mark, now, on this thread.
    /// - Returns: the mark reached (0 for an empty ledger).
    /// - Throws: `LogError.Code.io` when the database failed; `notWritable` on a reader or a closed store.
    @discardableResult
    public func indexSubjects() throws(LogError) -> UInt64 {
        guard isWriter else { throw LogError(.notWritable, "this store was opened for reading; open it as a writer") }
        guard !closed.load(ordering: .acquiring) else { throw Self.closedError }
        return try catchUpSubjectIndex()
    }

    /// ``indexPasses(_:)`` on a walk connection, which goes back to the idle ones (a session whose pass failed is
    /// dropped, not given back).
    func catchUpSubjectIndex() throws(LogError) -> UInt64 {
        let session = try idleWalker()
        var mark = try Self.indexPasses(session)
        if mark == nil {
            // Nothing to index: the mark as another turn left it.
            let result = try session.execute("SELECT coalesce(max(subjects_through), 0) FROM meta")
            mark = UInt64(try Self.integer(result, 0, 0))
        }
        walkers.give(session)
        return mark ?? 0
    }

    /// Passes of ``PostgresQuery/indexSubjects`` until one finds nothing to index.
    /// - Returns: the mark the last pass reached; nil when the first found nothing.
    static func indexPasses(_ session: PostgresSession) throws(LogError) -> UInt64? {
        var mark: UInt64?
        while true {
            let result = try session.execute(PostgresQuery.indexSubjects, [.int64(subjectIndexPass)])
            guard result.rowCount == 1 else { return mark }
            mark = UInt64(try integer(result, 0, 0))
        }
    }

    /// Whether records follow the subject index's mark.
    static func subjectIndexLags(_ session: PostgresSession) throws(LogError) -> Bool {
        let result = try session.execute(
            "SELECT EXISTS (SELECT 1 FROM records WHERE \(PostgresSchema.afterSubjectsMark))")
        return result.bytes(0, 0) == [1]
    }
}

/// The lifecycle of a writer's indexing turns: idle; a turn running; a turn running that must make one more pass
/// (records were committed during its pass); closed. Touched only holding `lock`.
final class SubjectIndexer: @unchecked Sendable {
    private enum Turn {
        case idle, running, again, closed
    }

    private let lock = ConditionLock()
    private var turn = Turn.idle

    /// After a commit: whether the caller starts a turn (none was running).
    func requestTurn() -> Bool {
        lock.withLock {
            switch turn {
            case .idle:
                turn = .running
                return true
            case .running, .again:
                turn = .again
                return false
            case .closed:
                return false
            }
        }
    }

    /// When a turn's pass ended: whether it makes another.
    func passEnded() -> Bool {
        lock.withLock {
            if turn == .again {
                turn = .running
                return true
            }
            turn = .idle
            lock.broadcast()
            return false
        }
    }

    /// A turn that could not start.
    func abandonTurn() {
        lock.withLock {
            turn = .idle
            lock.broadcast()
        }
    }

    /// Waits for a running turn to end; no turn starts after this.
    func close() {
        lock.lock()
        defer { lock.unlock() }
        while turn == .running || turn == .again { lock.wait() }
        turn = .closed
    }
}
