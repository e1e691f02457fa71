/// What every error of the ledger carries: a code, a message saying what happened and what to do, an optional
/// underlying cause, and where it was raised.
public struct ErrorDetail<Code: Hashable & Sendable>: Sendable {
    /// What kind of failure this is.
    public var code: Code
    /// What happened, and what to do about it.
    public var message: String
    /// The error that caused this one, if any.
    public var cause: (any Error & Sendable)?
    /// The source file that raised the error.
    public var file: String
    /// The source line that raised the error.
    public var line: Int

    /// Creates the detail of an error raised at `file`:`line`.
    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil, file: String, line: Int) {
        self.code = code
        self.message = message
        self.cause = cause
        self.file = file
        self.line = line
    }
}

/// The shape every module's error shares: an ``ErrorDetail`` behind `code`, `message`, `cause`, `file` and
/// `line`, the message as the description, and equality and hashing on the code only, so new codes never break
/// callers.
///
/// A module's error stores its ``detail`` (and any field of its own), declares its codes, and overrides
/// `description` when it says more than the message.
public protocol LedgerError: Error, Hashable, CustomStringConvertible, Sendable {
    /// The classification of the error's failures.
    associatedtype Code: Hashable & Sendable
    /// The code, message, cause and origin of the error.
    var detail: ErrorDetail<Code> { get set }
}

extension LedgerError {
    /// What kind of failure this is.
    public var code: Code {
        get { detail.code }
        set { detail.code = newValue }
    }
    /// What happened, and what to do about it.
    public var message: String {
        get { detail.message }
        set { detail.message = newValue }
    }
    /// The error that caused this one, if any.
    public var cause: (any Error & Sendable)? {
        get { detail.cause }
        set { detail.cause = newValue }
    }
    /// The source file that raised the error.
    public var file: String {
        get { detail.file }
        set { detail.file = newValue }
    }
    /// The source line that raised the error.
    public var line: Int {
        get { detail.line }
        set { detail.line = newValue }
    }

    /// The message.
    public var description: String { message }

    /// Errors are equal when their codes are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

/// An error made of a code, a message and an optional cause alone, created as `MyError(.code, "message")`.
public protocol PlainLedgerError: LedgerError {
    /// Creates the error from its detail.
    init(detail: ErrorDetail<Code>)
}

extension PlainLedgerError {
    /// Creates an error raised where this initializer is called.
    public init(
        _ code: Code, _ message: String, cause: (any Error & Sendable)? = nil, file: String = #fileID,
        line: Int = #line
    ) {
        self.init(detail: ErrorDetail(code, message, cause: cause, file: file, line: line))
    }
}
