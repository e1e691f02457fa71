import LedgerJSON

/// Why an App Store payload or response could not be turned into ledger records: a field of the wrong
/// JSON type, a missing identifier, an unrecognised document, a legacy receipt Apple refused.
///
/// Signature and chain failures are not here: they are the verification layer's `VerificationError`.
/// Equality is on the code only, so new codes never break callers.
public struct AppStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, opaque classification.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let raw: String
        private init(_ raw: String) { self.raw = raw }
        /// The code's name, e.g. `wrongType`.
        public var description: String { raw }

        /// A known field holds a JSON value of the wrong type (a string where a number belongs, …).
        public static let wrongType = Code("wrongType")
        /// A field the ledger cannot do without (an identifier, a date) is absent.
        public static let missingField = Code("missingField")
        /// A field has the right type but an unusable value (a malformed UUID or number string).
        public static let invalidValue = Code("invalidValue")
        /// The payloads disagree (a renewal about another subscription than its transaction, …).
        public static let inconsistent = Code("inconsistent")
        /// A reconcile input is none of the App Store Server API or `verifyReceipt` responses.
        public static let unrecognizedDocument = Code("unrecognizedDocument")
        /// A legacy `verifyReceipt` response carries a status other than 0 or 21006.
        public static let receiptStatus = Code("receiptStatus")
    }

    /// What kind of failure.
    public var code: Code
    /// What happened and what to do.
    public var message: String
    /// The JSON path of the offending field, e.g. `data.status`, when there is one.
    public var path: String?
    /// The underlying error, when another layer raised it.
    public var cause: (any Error & Sendable)?
    /// Source file that raised it.
    public var file: String
    /// Source line that raised it.
    public var line: Int

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, path: String? = nil, cause: (any Error & Sendable)? = nil,
        file: String = #fileID, line: Int = #line
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.cause = cause
        self.file = file
        self.line = line
    }

    /// The message, followed by the cause's description when there is one.
    public var description: String {
        guard let cause else { return message }
        return "\(message) (\(cause))"
    }

    /// Errors are equal when their codes are.
    public static func == (lhs: AppStoreError, rhs: AppStoreError) -> Bool { lhs.code == rhs.code }
    /// Hashes the code only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension AppStoreError {
    /// A known field with a JSON value of the wrong type.
    static func wrongType(
        _ path: String, expected: String, found: JSONValue, file: String = #fileID, line: Int = #line
    ) -> AppStoreError {
        AppStoreError(
            .wrongType,
            "field \(path) should be \(expected) but is \(found.kindName); the payload does not follow Apple's "
                + "format, so it was not recorded",
            path: path, file: file, line: line)
    }

    /// A field the ledger needs but the payload lacks.
    static func missing(_ path: String, file: String = #fileID, line: Int = #line) -> AppStoreError {
        AppStoreError(
            .missingField,
            "field \(path) is missing; the ledger needs it to record the payload, check that the input is "
                + "the complete decoded payload",
            path: path, file: file, line: line)
    }
}
