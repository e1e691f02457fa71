/// What a derived file holds.
public struct DerivedSnapshot: Sendable, Hashable {
    /// The seq of the last record the content reflects (0: none).
    public var coveredSeq: UInt64
    /// The chain hash of that record.
    public var headHash: [UInt8]
    /// The content.
    public var bytes: [UInt8]

    /// Creates a snapshot.
    public init(coveredSeq: UInt64, headHash: [UInt8], bytes: [UInt8]) {
        self.coveredSeq = coveredSeq
        self.headHash = headHash
        self.bytes = bytes
    }
}

extension RecordStore {
    /// Whether `snapshot` was derived from this store's history: the record it covers (the genesis for 0) is
    /// still there with the chain hash it was derived from. A snapshot of a history that was cut, replaced or
    /// restored from elsewhere is not.
    ///
    /// One read of the covered record, and no look at the head (a round trip of its own on a database).
    public func holdsHistory(of snapshot: DerivedSnapshot) -> Bool {
        if snapshot.coveredSeq == 0 {
            return snapshot.headHash == (environment.map { LogFormat.genesis(environment: $0) } ?? [])
        }
        guard let record = try? record(seq: snapshot.coveredSeq) else { return false }
        return record.hash == snapshot.headHash
    }
}
