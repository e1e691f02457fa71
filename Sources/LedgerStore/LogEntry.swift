/// What a caller appends: opaque payload bytes plus the metadata the log indexes.
public struct LogEntry: Sendable, Hashable {
    /// Recognises duplicates forever: a second entry with the same key is not appended
    /// (a notificationUUID for notifications; a content key for other sources). Must not be empty.
    public var idempotencyKey: String
    /// The subjects this record is about (e.g. `user:42`, `otid:2000000123`); each is indexed.
    public var subjectKeys: [String]
    /// The record itself, in the caller's binary encoding.
    public var payload: [UInt8]
    /// When the record was recorded, in ms since the epoch; nil means now. Set by import to keep the original
    /// time. The log keeps times non-decreasing: a time before the previous record's becomes that time.
    public var recordedAt: Int64?

    /// Creates an entry.
    public init(idempotencyKey: String, subjectKeys: [String] = [], payload: [UInt8], recordedAt: Int64? = nil) {
        self.idempotencyKey = idempotencyKey
        self.subjectKeys = subjectKeys
        self.payload = payload
        self.recordedAt = recordedAt
    }

    /// An entry that re-appends a record exported from another log, keeping its time.
    public init(_ record: LogRecord) {
        self.init(
            idempotencyKey: record.idempotencyKey, subjectKeys: record.subjectKeys, payload: record.payload,
            recordedAt: record.recordedAt)
    }

    /// Throws ``LogError/Code/invalidEntry`` when the entry cannot be stored.
    public func validate() throws(LogError) {
        try withUnsafePointer(to: self) { (entry) throws(LogError) in try Self.validate(entry) }
    }

    /// ``validate()`` in place: a method call on an entry inside an array would copy it (its key and both arrays
    /// retained and released) for every record appended.
    package static func validate(_ entry: UnsafePointer<LogEntry>) throws(LogError) {
        let idempotencyKey = entry.pointee.idempotencyKey
        let subjectKeys = entry.pointee.subjectKeys
        let payload = entry.pointee.payload
        let keyLength = idempotencyKey.utf8.count
        guard keyLength > 0, keyLength <= LogFormat.maxKeyLength else {
            throw LogError(
                .invalidEntry,
                "an idempotency key must be 1 to \(LogFormat.maxKeyLength) UTF-8 bytes (got \(keyLength))")
        }
        guard subjectKeys.count <= LogFormat.maxSubjectKeys else {
            throw LogError(
                .invalidEntry,
                "a record has at most \(LogFormat.maxSubjectKeys) subject keys (got \(subjectKeys.count))")
        }
        for index in subjectKeys.indices {
            let length = subjectKeys[index].utf8.count
            guard length > 0, length <= LogFormat.maxKeyLength else {
                throw LogError(.invalidEntry, "a subject key must be 1 to \(LogFormat.maxKeyLength) UTF-8 bytes")
            }
        }
        guard payload.count <= LogFormat.maxPayloadSize else {
            throw LogError(
                .invalidEntry, "a payload is at most \(LogFormat.maxPayloadSize) bytes (got \(payload.count))")
        }
    }
}
