/// Group commit as a state machine: callers queue requests; the first caller to find no leader becomes the
/// leader, takes a batch of the queued requests (its own among them), commits them in one write and one flush,
/// and publishes every request's outcome; the others wait for theirs. Concurrent callers then share one flush
/// instead of queueing for one each.
///
/// The machine holds no lock and does no I/O: its owner calls it holding a lock (``ConditionLock``), acts on
/// each ``Step``, and wakes the waiters after ``finish(_:)``. The file log and the PostgreSQL store both run their
/// group commit on it.
public struct GroupCommitQueue<Request, Outcome> {
    /// What the caller holding a ticket does next.
    public enum Step {
        /// Its request was committed (or failed): here is its outcome.
        case done(Outcome)
        /// Another caller leads: wait (releasing the lock) and ask again when woken.
        case wait
        /// Lead: commit these requests (in queue order, each with its ticket), then ``finish(_:)``.
        case lead([(ticket: Int, request: Request)])
    }

    private var queue: [(ticket: Int, request: Request)] = []
    private var finished: [Int: Outcome] = [:]
    private var leading = false
    private var nextTicket = 0
    /// The most a batch weighs (a single heavier request still goes alone, whole).
    private let maxWeight: Int
    /// What a request weighs against `maxWeight` (for the stores: its number of entries).
    private let weight: (Request) -> Int

    /// An empty queue whose batches weigh at most `maxWeight` by `weight`.
    public init(maxWeight: Int, weight: @escaping (Request) -> Int) {
        self.maxWeight = maxWeight
        self.weight = weight
    }

    /// Queues the request `make` builds with its ticket; returns the ticket, to ask ``next(_:)`` with.
    public mutating func enqueue(_ make: (Int) -> Request) -> Int {
        let ticket = nextTicket
        nextTicket += 1
        queue.append((ticket, make(ticket)))
        return ticket
    }

    /// What the caller holding `ticket` does now: take its outcome, wait, or lead a batch.
    public mutating func next(_ ticket: Int) -> Step {
        if let outcome = finished.removeValue(forKey: ticket) { return .done(outcome) }
        if leading { return .wait }
        leading = true
        var taken = 0
        var total = 0
        while taken < queue.count {
            let next = weight(queue[taken].request)
            if taken > 0 && total + next > maxWeight { break }
            total += next
            taken += 1
        }
        let batch = Array(queue.prefix(taken))
        queue.removeFirst(taken)
        return .lead(batch)
    }

    /// Ends the leader's turn with the outcome of each request of its batch (by ticket); the owner then wakes
    /// the waiters.
    public mutating func finish(_ outcomes: some Sequence<(ticket: Int, outcome: Outcome)>) {
        for (ticket, outcome) in outcomes { finished[ticket] = outcome }
        leading = false
    }
}
