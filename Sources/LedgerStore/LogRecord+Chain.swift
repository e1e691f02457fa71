extension LogRecord {
    /// The chain hash this record must carry when it follows a record whose hash is `previous`:
    /// SHA-256(previous ‖ the record's body), exactly as the writer computed it.
    public func chainHash(after previous: [UInt8]) -> [UInt8] {
        LogFormat.chainHash(previous: previous, seq: seq, recordedAt: recordedAt, entry: LogEntry(self))
    }

    /// Whether this record's stored hash is the chain hash after `previous`.
    public func chainLinkHolds(after previous: [UInt8]) -> Bool {
        chainHash(after: previous) == hash
    }
}

extension RecordStore {
    /// The hash the record at `seq` must chain from: the previous record's hash, or the environment's
    /// genesis hash for the first record.
    public func previousHash(of seq: UInt64) throws(LogError) -> [UInt8] {
        if seq <= 1 { return LogFormat.genesis(environment: environment ?? "") }
        return try record(seq: seq - 1).hash
    }
}
