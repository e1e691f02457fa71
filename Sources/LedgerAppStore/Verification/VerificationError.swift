/// The error App Store verification throws: Apple's status name, a message saying what happened
/// and what to do, an optional cause and where it was raised.
///
/// Equality is on the status only, so tests and callers compare classes of failure.
public struct VerificationError: Error, Hashable, CustomStringConvertible, Sendable {
    /// Apple's name for the failure.
    public var status: VerificationStatus
    /// What happened, and what to do about it.
    public var message: String
    /// The underlying error, when there is one.
    public var cause: (any Error & Sendable)?
    /// The source file that raised the error.
    public var file: String
    /// The source line that raised the error.
    public var line: Int

    /// Creates an error.
    public init(
        _ status: VerificationStatus, _ message: String, cause: (any Error & Sendable)? = nil,
        file: String = #fileID, line: Int = #line
    ) {
        self.status = status
        self.message = message
        self.cause = cause
        self.file = file
        self.line = line
    }

    /// The same failure, its message prefixed with where it occurred (e.g. `signedTransactionInfo`).
    func within(_ field: String) -> VerificationError {
        var copy = self
        copy.message = "\(field): \(message)"
        return copy
    }

    /// `STATUS: message`.
    public var description: String { "\(status.rawValue): \(message)" }

    public static func == (lhs: VerificationError, rhs: VerificationError) -> Bool {
        lhs.status == rhs.status
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(status) }
}
