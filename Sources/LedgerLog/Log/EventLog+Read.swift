import LedgerStore
import LedgerSystem

extension EventLog {
    /// The record with this seq; ``LogError/Code/notFound`` when there is none.
    public func record(seq: UInt64) throws(LogError) -> LogRecord {
        let segments = try readableSegments()
        return try SegmentReader.readRecord(fileSystem, segments, seq: seq)
    }

    /// Calls `body` with every record from `seq` to the head as it was when the call began, in order.
    /// Each record's checksum is checked; a damaged one stops the scan with ``LogError/Code/damaged``.
    public func forEach(from seq: UInt64 = 1, _ body: (LogRecord) throws -> Void) throws {
        try forEachView(from: seq) { view, segment, offset in
            try body(view.record(segment: segment, offset: offset))
        }
    }

    /// The fast scan: calls `body` with each record in place (no copies), its segment name and offset.
    /// The view is valid only during the call.
    public func forEachView(
        from seq: UInt64 = 1, _ body: (LogRecordView, _ segment: String, _ offset: Int64) throws -> Void
    ) throws {
        let (segments, head) = try lock.withLock { () throws(LogError) in
            guard !state.closed else { throw Self.closedError }
            return (state.segments, state.head.seq)
        }
        var failure: (any Error)?
        try SegmentReader.scan(fileSystem, segments, from: max(seq, 1), through: head, checkCRC: true) {
            view, name, offset in
            do {
                try body(view, name, offset)
                return true
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
    }

    static var closedError: LogError {
        LogError(.notWritable, "the log is closed; open it again")
    }

    func readableSegments() throws(LogError) -> [Segment] {
        try lock.withLock { () throws(LogError) in
            guard !state.closed else { throw Self.closedError }
            return state.segments
        }
    }
}
