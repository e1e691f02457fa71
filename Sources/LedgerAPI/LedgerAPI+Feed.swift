import LedgerCore
import LedgerHTTP
import LedgerJSON
import LedgerService
import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

extension LedgerAPI {
    /// The most events one feed page returns.
    static let maxFeedLimit = 1000
    /// The longest a feed request waits for new events, in seconds.
    static let maxFeedWait = 60.0
    /// How often a waiting feed request looks whether the server is shutting down, in milliseconds.
    static let drainCheckMillis = 100

    /// The `status` of the 400 a feed request gets when its cursor is beyond the head.
    static let cursorAhead = HTTPError.Code("CURSOR_AHEAD")

    /// `GET /v1/events?after=SEQ&limit=N&wait=S`: the records after SEQ, gap-free in sequence order, and
    /// the cursor to continue from. With `wait`, an empty page waits up to S seconds for the next record, unless
    /// ``maxWaitingFeeds`` requests are waiting already: long polls must not take every connection the server has
    /// and keep Apple's deliveries out. Such a request gets its page at once when there is one, else 503 with
    /// `Retry-After` (an empty 200 at once would have a consumer that polls again spin on the server).
    /// Building the page waits its turn at ``heavyReads`` (503 with `Retry-After` when too many wait already).
    /// A cursor beyond the head is 400 `CURSOR_AHEAD`: it was not handed out by this log (a consumer's cursor
    /// from before a restore, or from another ledger), and answering an empty page would let the consumer skip
    /// the records appended up to it.
    func events(_ request: HTTPRequest) throws -> HTTPResponse {
        let cursor = try wholeNumber(request, "after", default: 0, range: 0...UInt64(Int64.max))
        let limit = try wholeNumber(request, "limit", default: 100, range: 1...UInt64(Self.maxFeedLimit))
        let wait = try number(request, "wait", default: 0, range: 0...Self.maxFeedWait)
        let current = ledger.head.seq
        if cursor > current {
            throw HTTPError(
                .badRequest, code: Self.cursorAhead,
                message:
                    "after \(cursor) is beyond the head, record \(current): this log never handed out that cursor "
                    + "(it was restored from a backup, or the cursor is another ledger's); the consumer holds records "
                    + "this log does not: re-sync it from a seq at most \(current)")
        }
        if wait > 0, current == cursor {
            guard waitingFeeds.enter(limit: maxWaitingFeeds) else {
                throw HTTPError(
                    .serviceUnavailable, code: .unavailable,
                    message:
                        "too many feed requests wait for events at once (at most \(maxWaitingFeeds)); retry shortly",
                    headers: ["Retry-After": "1"])
            }
            defer { waitingFeeds.leave() }
            // Woken by the writer's group commit as soon as a record after the cursor is durable; waiting in slices
            // of at most `drainCheckMillis`, so that a shutdown ends the wait at once (``endLongPolls()``).
            let deadline = SystemClock.monotonicSeconds() + wait
            while !draining.isSet {
                let left = Int((deadline - SystemClock.monotonicSeconds()) * 1000)
                if left <= 0
                    || ledger.waitForHead(after: cursor, timeoutMillis: min(left, Self.drainCheckMillis)) > cursor
                {
                    break
                }
            }
        }
        // The page itself (up to 1000 records, ~2 MB) is the heavy part: admitted by ``heavyReads``, not the wait.
        return try heavyReads.run { () throws -> HTTPResponse in
            let head = ledger.head.seq
            var events: [JSONValue] = []
            var next = cursor
            if head > cursor {
                let last = min(head, cursor + limit)
                for seq in (cursor + 1)...last {
                    let entry = try serviceCall { () throws(ServiceError) in try ledger.entry(seq: seq) }
                    events.append(entry.historyJSON)
                    next = seq
                }
            }
            return .json(.object(["events": .array(events), "next": .integer(Int64(clamping: next))]))
        }
    }

    /// A query parameter that is a number of seconds (fractions allowed), within `range`.
    func number(_ request: HTTPRequest, _ name: String, default value: Double, range: ClosedRange<Double>) throws
        -> Double
    {
        guard let text = request.query(name) else { return value }
        // Plain decimals only (Double's parser also takes hexadecimal, exponents, "inf" and "nan").
        let decimal = text.utf8.count <= 32 && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E }
        guard decimal, let number = Double(text), number.isFinite, range.contains(number) else {
            throw HTTPError.badRequest("\(name) must be a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// A query parameter that is a whole number (decimal digits only), within `range`.
    func wholeNumber(_ request: HTTPRequest, _ name: String, default value: UInt64, range: ClosedRange<UInt64>)
        throws -> UInt64
    {
        guard let text = request.query(name) else { return value }
        guard !text.isEmpty, text.utf8.count <= 20, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let number = UInt64(text), range.contains(number)
        else {
            throw HTTPError.badRequest(
                "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}
