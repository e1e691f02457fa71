import LedgerErrors

/// The error App Store verification throws: Apple's status name, a message saying what happened
/// and what to do, an optional cause and where it was raised.
///
/// Equality is on the status only, so tests and callers compare classes of failure.
public struct VerificationError: PlainLedgerError {
    /// The status, message, cause and origin of the error.
    public var detail: ErrorDetail<VerificationStatus>

    /// Creates an error from its detail.
    public init(detail: ErrorDetail<VerificationStatus>) { self.detail = detail }

    /// Apple's name for the failure (the error's ``code``).
    public var status: VerificationStatus {
        get { detail.code }
        set { detail.code = newValue }
    }

    /// The same failure, its message prefixed with where it occurred (e.g. `signedTransactionInfo`).
    func within(_ field: String) -> VerificationError {
        var copy = self
        copy.message = "\(field): \(message)"
        return copy
    }

    /// `STATUS: message`.
    public var description: String { "\(status.rawValue): \(message)" }
}
