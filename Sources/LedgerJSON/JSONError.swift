/// Why some bytes are not the JSON the ledger accepts.
public struct JSONError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, opaque classification.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let raw: String
        private init(_ raw: String) { self.raw = raw }
        public var description: String { raw }

        /// The bytes are not well-formed JSON.
        public static let syntax = Code("syntax")
        /// Well-formed, but beyond a limit (size, nesting depth).
        public static let limit = Code("limit")
        /// Well-formed, but not the shape expected (a missing member, a wrong type).
        public static let shape = Code("shape")
    }

    /// What kind of failure.
    public var code: Code
    /// What happened.
    public var message: String
    /// Byte offset of the problem in the input, when known.
    public var offset: Int?
    /// Source file that raised it.
    public var file: String
    /// Source line that raised it.
    public var line: Int

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, offset: Int? = nil, file: String = #fileID, line: Int = #line
    ) {
        self.code = code
        self.message = message
        self.offset = offset
        self.file = file
        self.line = line
    }

    public var description: String {
        offset.map { "\(message) at byte \($0)" } ?? message
    }

    public static func == (lhs: JSONError, rhs: JSONError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
