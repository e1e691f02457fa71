import LedgerSystem

extension IngestPipeline {
    /// Verifies and maps a batch of bodies on `threads` threads; the results are in the bodies' order.
    public func prepare(bodies: [[UInt8]], threads: Int) -> [Prepared] {
        let workers = max(1, min(threads, bodies.count))
        let slots = ResultSlots<Prepared>(count: bodies.count)
        runThreads(workers) { worker in
            for index in stride(from: worker, to: bodies.count, by: workers) {
                slots.set(index, self.prepare(body: bodies[index]))
            }
        }
        return slots.values().map { $0! }
    }

    /// Ingests batches in order, one durable group commit each, verifying each batch on `threads` threads
    /// while the batch before it is committed. Verification touches nothing shared; the duplicate check and
    /// the append happen in the commit, batch after batch, so the log ends up exactly as with one batch at a
    /// time.
    ///
    /// `committed` gets each batch's results, in order, once the batch is durable. Throws the first failure
    /// to write the log: the batches reported before it stay appended, nothing after it is appended.
    public func ingest<Batches: Sequence<[[UInt8]]>>(
        batches: Batches, threads: Int, committed: ([IngestResult]) -> Void
    ) throws(ServiceError) {
        var iterator = batches.makeIterator()
        var pending: (bodies: [[UInt8]], prepared: [Prepared])?
        while true {
            let next = iterator.next()
            guard pending != nil || next != nil else { return }
            let toCommit = pending
            let commitResult = ResultSlots<Result<[IngestResult], ServiceError>>(count: 1)
            let prepareResult = ResultSlots<[Prepared]>(count: 1)
            runThreads(2) { role in
                if role == 0, let toCommit {
                    do throws(ServiceError) {
                        commitResult.set(0, .success(try self.commit(toCommit.prepared, bodies: toCommit.bodies)))
                    } catch {
                        commitResult.set(0, .failure(error))
                    }
                } else if role == 1, let next {
                    prepareResult.set(0, self.prepare(bodies: next, threads: threads))
                }
            }
            if let result = commitResult.values()[0] { committed(try result.get()) }
            pending = next.map { ($0, prepareResult.values()[0]!) }
        }
    }
}
