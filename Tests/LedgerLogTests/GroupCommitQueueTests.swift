import LedgerSystem
import Testing

/// The group commit's state machine, step by step: who leads, what a batch takes, who gets which outcome.
@Suite struct GroupCommitQueueTests {
    typealias Queue = GroupCommitQueue<[Int], String>

    func tickets(of step: Queue.Step) -> [Int]? {
        if case .lead(let batch) = step { return batch.map(\.ticket) }
        return nil
    }

    @Test func theFirstToAskLeadsEveryoneQueuedAndTheOthersWaitForTheirOutcome() {
        var queue = Queue(maxWeight: 100, weight: \.count)
        let a = queue.enqueue { _ in [1] }
        let b = queue.enqueue { _ in [2, 3] }
        let c = queue.enqueue { _ in [4] }
        #expect(tickets(of: queue.next(b)) == [a, b, c], "one batch, in queue order")
        for ticket in [a, c] {
            guard case .wait = queue.next(ticket) else {
                Issue.record("ticket \(ticket) should wait while another leads")
                return
            }
        }
        queue.finish([(a, "A"), (b, "B"), (c, "C")])
        for (ticket, expected) in [(a, "A"), (b, "B"), (c, "C")] {
            guard case .done(let outcome) = queue.next(ticket) else {
                Issue.record("ticket \(ticket) has no outcome")
                return
            }
            #expect(outcome == expected)
        }
    }

    @Test func aBatchStopsAtItsWeightButAHeavierRequestGoesWholeAndALeaderLeadsUntilItsOwnIsDone() {
        var queue = Queue(maxWeight: 3, weight: \.count)
        let heavy = queue.enqueue { _ in [1, 2, 3, 4, 5] }
        let small = queue.enqueue { _ in [6] }
        let other = queue.enqueue { _ in [7, 8] }
        let late = queue.enqueue { _ in [9] }
        #expect(tickets(of: queue.next(late)) == [heavy], "a request over the limit goes alone")
        queue.finish([(heavy, "heavy")])
        #expect(tickets(of: queue.next(late)) == [small, other], "then as much as the limit allows")
        queue.finish([(small, "small"), (other, "other")])
        #expect(tickets(of: queue.next(late)) == [late], "the leader leads again until its own is committed")
        queue.finish([(late, "late")])
        guard case .done("late") = queue.next(late), case .done("heavy") = queue.next(heavy) else {
            Issue.record("outcomes lost")
            return
        }
    }
}
