import LedgerErrors
import LedgerJSON

/// Why an App Store payload or response could not be turned into ledger records: a field of the wrong
/// JSON type, a missing identifier, an unrecognised document, a legacy receipt Apple refused.
///
/// Signature and chain failures are not here: they are the verification layer's `VerificationError`.
/// Equality is on the code only, so new codes never break callers.
public struct AppStoreError: LedgerError {
    /// A stable, opaque classification.
    public typealias Code = ErrorCode<AppStoreError>

    /// The code, message, cause and origin of the error.
    public var detail: ErrorDetail<Code>
    /// The JSON path of the offending field, e.g. `data.status`, when there is one.
    public var path: String?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, path: String? = nil, cause: (any Error & Sendable)? = nil,
        file: String = #fileID, line: Int = #line
    ) {
        detail = ErrorDetail(code, message, cause: cause, file: file, line: line)
        self.path = path
    }

    /// The message, followed by the cause's description when there is one.
    public var description: String {
        guard let cause else { return message }
        return "\(message) (\(cause))"
    }
}

extension ErrorCode where Domain == AppStoreError {
    /// A known field holds a JSON value of the wrong type (a string where a number belongs, …).
    public static var wrongType: Self { Self("wrongType") }
    /// A field the ledger cannot do without (an identifier, a date) is absent.
    public static var missingField: Self { Self("missingField") }
    /// A field has the right type but an unusable value (a malformed UUID or number string).
    public static var invalidValue: Self { Self("invalidValue") }
    /// The payloads disagree (a renewal about another subscription than its transaction, …).
    public static var inconsistent: Self { Self("inconsistent") }
    /// A reconcile input is none of the App Store Server API or `verifyReceipt` responses.
    public static var unrecognizedDocument: Self { Self("unrecognizedDocument") }
    /// A legacy `verifyReceipt` response carries a status other than 0 or 21006.
    public static var receiptStatus: Self { Self("receiptStatus") }
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
