import LedgerJSON

/// Typed reads of the few payload fields verification needs. A field of the wrong JSON type is
/// `INVALID_JWT_FORMAT`, as a failed decode is in Apple's libraries; `null` counts as absent.
enum SignedFields {
    static func string(_ object: JSONObject, _ key: String) throws(VerificationError) -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let text = value.string else { throw wrongType(key, "a string") }
        return text
    }

    static func int64(_ object: JSONObject, _ key: String) throws(VerificationError) -> Int64? {
        guard let value = object[key], !value.isNull else { return nil }
        // The same rule as the models' integer fields (`JSONFields.int64`): `1234567890.0` is an integer.
        guard let number = value.exactInt64 else { throw wrongType(key, "an integer in the 64-bit range") }
        return number
    }

    static func object(_ object: JSONObject, _ key: String) throws(VerificationError) -> JSONObject? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let nested = value.object else { throw wrongType(key, "an object") }
        return nested
    }

    /// `signedDate` in milliseconds; Xcode's fractional milliseconds are truncated, as Apple's
    /// libraries do.
    static func signedDate(of payload: JSONObject) throws(VerificationError) -> Int64? {
        guard let value = payload["signedDate"], !value.isNull else { return nil }
        switch value {
        case .integer(let milliseconds):
            return milliseconds
        case .double(let milliseconds) where milliseconds.isFinite && abs(milliseconds) < 9.0e18:
            return Int64(milliseconds)
        default:
            throw wrongType("signedDate", "a number of milliseconds")
        }
    }

    static func quoted(_ text: String?) -> String { text.map { "\"\($0)\"" } ?? "(none)" }

    private static func wrongType(_ key: String, _ expected: String) -> VerificationError {
        VerificationError(.invalidJWTFormat, "the payload's \(key) is not \(expected)")
    }
}
