import LedgerAppStore

/// Why ingest refused a body: one of Apple's verification status names (`VERIFICATION_FAILURE`, …), or the
/// ledger's own `PAYLOAD_TOO_LARGE`. The raw value is what the quarantine keeps and the webhook's error names;
/// an unknown one read back is kept as it is.
public struct IngestStatus: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The stable name.
    public let rawValue: String

    /// Wraps a name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A name, written as a literal.
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    /// The verifier's status.
    public init(_ status: VerificationStatus) { self.init(rawValue: status.rawValue) }

    /// A body over ``IngestPipeline/maxBodyBytes`` (the webhook's 413).
    public static let payloadTooLarge = IngestStatus(rawValue: "PAYLOAD_TOO_LARGE")
    /// A body that is not a notification Apple could have sent, or that the ledger cannot map or store.
    public static let invalidJWTFormat = IngestStatus(.invalidJWTFormat)

    /// The name.
    public var description: String { rawValue }
}
