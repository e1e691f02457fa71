import LedgerStore

extension LogError {
    /// The error for a read that found something else than record `seq` at byte `offset` of segment `segment`:
    /// a frame a newer format version wrote (`newerVersion`, from ``RecordCodec/Parse/newerVersion(_:)``) is
    /// ``Code/unsupportedVersion``, worded as the open's walk words it; anything else is ``Code/damaged``.
    static func unreadable(
        segment: String, offset: Int64, seq: UInt64, newerVersion: UInt8? = nil, file: String = #fileID,
        line: Int = #line
    ) -> LogError {
        if let newerVersion {
            return LogError(
                .unsupportedVersion,
                "segment \(segment) byte \(offset): record \(seq) was written by log format \(newerVersion); "
                    + "upgrade the ledger", file: file, line: line)
        }
        return LogError(
            .damaged,
            "segment \(segment) is damaged at byte \(offset) (record \(seq)); run `ledger verify` for details",
            file: file, line: line)
    }
}
