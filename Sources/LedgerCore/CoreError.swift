import LedgerErrors

/// The error the pure domain raises: today only while decoding a binary ``LedgerRecord``.
///
/// An opaque ``Code``, a message saying what happened and what to do, an optional underlying cause and
/// where it was raised. Equality is on the code only, so new codes never break callers.
public struct CoreError: PlainLedgerError {
    /// A stable, opaque classification of a domain failure.
    public typealias Code = ErrorCode<CoreError>

    /// The code, message, cause and origin of the error.
    public var detail: ErrorDetail<Code>

    /// Creates an error from its detail.
    public init(detail: ErrorDetail<Code>) { self.detail = detail }

    /// The message, followed by the cause's description when there is one.
    public var description: String {
        guard let cause else { return message }
        return "\(message) (cause: \(cause))"
    }
}

extension ErrorCode where Domain == CoreError {
    /// The bytes end before the value they announce.
    public static var truncated: Self { Self("truncated") }
    /// The bytes are not a valid encoding (bad tag, overlong varint, invalid UTF-8, trailing bytes…).
    public static var malformed: Self { Self("malformed") }
    /// The bytes were written by a newer encoding version than this build understands.
    public static var unsupportedVersion: Self { Self("unsupportedVersion") }
    /// A length or count exceeds the limit the decoder accepts.
    public static var limitExceeded: Self { Self("limitExceeded") }
}
