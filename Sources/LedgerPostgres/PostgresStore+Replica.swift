import LedgerStore
import LedgerSystem

/// Subject reads from memory (``SubjectReplica``), for long-running processes such as `ledger serve`.
///
/// A subject read of the database costs a query per key, and the server fetches a page per record: about 0.1 ms a
/// key, two or three keys an answer. With the copy, an answer costs one query, for the head, and a copy of the
/// records appended since when there are any (`docs/benchmarks.md` has the figures).
extension PostgresStore: SubjectSnapshots {
    /// The records one pass of the loader copies (one streamed statement).
    static let replicaPass: UInt64 = 100_000

    /// Starts copying the records table into memory on a thread of its own; reads go to the database until the
    /// copy reaches the head.
    func startReplica(_ replica: SubjectReplica) {
        replica.loaderStarted()
        do {
            try startThread(detached: true) { [self] in
                defer { replica.loaderEnded() }
                do {
                    while replica.isLoading {
                        let head = currentHead().seq
                        let through = try replica.copies.withLock { copies throws(LogError) in
                            try copyRecords(into: &copies, replica: replica, to: head, most: Self.replicaPass)
                        }
                        if through >= head { replica.loaded() }
                    }
                } catch {
                    // Given up (and freed) by `copyRecords`, or the store closed: reads go to the database.
                    replica.drop()
                }
            }
        } catch {
            replica.loaderEnded()
            replica.drop()
        }
    }

    /// Waits (up to `seconds`) until the in-memory copy of the records answers subject reads; whether it does.
    /// False at once for a store opened without one, or whose copy was given up.
    public func awaitReplica(seconds: Double = 60) -> Bool {
        replica?.awaitLoaded(seconds: seconds) ?? false
    }

    /// Brings the in-memory copy up to the head (copying what was appended since, by any process) and returns
    /// reads of the records up to that head from it; nil when there is no copy to answer from.
    public func subjectSnapshot() throws(LogError) -> (any SubjectReading)? {
        guard let replica, replica.isReady else { return nil }
        let head = currentHead().seq
        let current = replica.copies.withLock { copies -> Bool in
            guard replica.isReady else { return false }
            if copies.through < head {
                // On failure the copy is given up: the database answers (or fails) itself.
                _ = try? copyRecords(into: &copies, replica: replica, to: head, most: .max)
            }
            return copies.through >= head
        }
        return current ? ReplicaSnapshot(store: self, replica: replica, head: head) : nil
    }

    /// Copies the records after `copies.through`, up to `head` and at most `most` of them, in one streamed
    /// statement. Gives the copy up (and throws) when it would outgrow its limit or the rows have a gap.
    /// - Returns: the last seq copied.
    func copyRecords(into copies: inout RecordCopies, replica: SubjectReplica, to head: UInt64, most: UInt64)
        throws(LogError) -> UInt64
    {
        guard head > copies.through else { return copies.through }
        let from = copies.through + 1
        let end = copies.through + min(most, head - copies.through)
        // Two integers: nothing from outside reaches the statement's text.
        let query =
            "SELECT seq, recorded_at, subject_keys, payload FROM records WHERE seq >= \(from) AND seq <= \(end) "
            + "ORDER BY seq"
        var failure: LogError?
        do {
            try walk(query) { row in
                // Only this function gives the copy up, holding `copies`: closing is what can stop it here.
                guard !closed.load(ordering: .relaxed) else { throw Self.closedError }
                guard row.count == 4, let seq = row.int64(0), UInt64(seq) == copies.through + 1,
                    let recordedAt = row.int64(1), !row.isNull(3),
                    let keys = PostgresResult.decodeArray(row[2], { String(decoding: $0, as: UTF8.self) })
                else {
                    throw Self.gap(copies.through + 1)
                }
                copies.append(seq: UInt64(seq), recordedAt: recordedAt, subjectKeys: keys, payload: row[3])
                guard copies.bytes <= replica.limit else {
                    throw LogError(.io, "the in-memory copy of the records outgrew its \(replica.limit) bytes")
                }
            }
        } catch let error as LogError {
            failure = error
        } catch {
            failure = LogError(.io, "\(error)")
        }
        if failure == nil, copies.through != end { failure = Self.gap(copies.through + 1) }
        if let failure {
            replica.drop()
            copies = RecordCopies()
            throw failure
        }
        return end
    }
}

/// Subject reads of the records up to `head` from a ``SubjectReplica``; from the database when the copy was given
/// up since.
struct ReplicaSnapshot: SubjectReading {
    let store: PostgresStore
    let replica: SubjectReplica
    let head: UInt64

    func forEachPayload(
        forSubjectKey key: String, skipping: Set<UInt64>, _ body: (UInt64, Int64, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let answered = try replica.copies.withLock { copies in
            guard replica.isReady, copies.through >= head else { return false }
            try copies.forEachPayload(forSubjectKey: key, skipping: skipping, through: head, body)
            return true
        }
        if !answered { try store.databasePayloads(forSubjectKey: key, skipping: skipping, body) }
    }
}
