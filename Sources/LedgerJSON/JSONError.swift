import LedgerErrors

/// Why some bytes are not the JSON the ledger accepts.
public struct JSONError: LedgerError {
    /// A stable, opaque classification.
    public typealias Code = ErrorCode<JSONError>

    /// The code, message and origin of the error.
    public var detail: ErrorDetail<Code>
    /// Byte offset of the problem in the input, when known.
    public var offset: Int?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, offset: Int? = nil, file: String = #fileID, line: Int = #line
    ) {
        detail = ErrorDetail(code, message, file: file, line: line)
        self.offset = offset
    }

    /// The message, with the byte offset when it is known.
    public var description: String {
        offset.map { "\(message) at byte \($0)" } ?? message
    }
}

extension ErrorCode where Domain == JSONError {
    /// The bytes are not well-formed JSON.
    public static var syntax: Self { Self("syntax") }
    /// Well-formed, but beyond a limit (size, nesting depth).
    public static var limit: Self { Self("limit") }
    /// Well-formed, but not the shape expected (a missing member, a wrong type).
    public static var shape: Self { Self("shape") }
}
