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
