/// One record read back from the log.
public struct LogRecord: Sendable, Hashable {
    /// Gap-free sequence number, starting at 1.
    public var seq: UInt64
    /// When it was appended, in ms since the epoch (non-decreasing along the log).
    public var recordedAt: Int64
    /// The idempotency key it was appended with.
    public var idempotencyKey: String
    /// The subjects it is indexed under.
    public var subjectKeys: [String]
    /// The payload bytes, as appended.
    public var payload: [UInt8]
    /// The chain hash: SHA-256(previous record's hash ‖ this record's body without the hash).
    public var hash: [UInt8]
    /// The segment file holding it (for messages).
    public var segment: String
    /// Its byte offset in that segment (for messages).
    public var offset: Int64

    /// Creates a record.
    public init(
        seq: UInt64, recordedAt: Int64, idempotencyKey: String, subjectKeys: [String], payload: [UInt8],
        hash: [UInt8], segment: String, offset: Int64
    ) {
        self.seq = seq
        self.recordedAt = recordedAt
        self.idempotencyKey = idempotencyKey
        self.subjectKeys = subjectKeys
        self.payload = payload
        self.hash = hash
        self.segment = segment
        self.offset = offset
    }
}
