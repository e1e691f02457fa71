import LedgerCore
import LedgerJSON

/// Reads the members of one JSON object with type checks, naming the full JSON path of any field
/// that is of the wrong type. Absent members and `null` both read as nil, as in Apple's libraries.
struct JSONFields {
    /// The object read.
    let object: JSONObject
    /// The object's own path, e.g. `data`; empty at the top.
    let path: String
    /// Whether the members the ledger needs (ids, dates; Apple's models leave every member optional) must be
    /// present: true to record a payload, false to judge it as Apple's libraries do (`ledger inspect`), where
    /// only a member of the wrong type fails. An absent one then reads as an empty string or the epoch.
    var ledgerFieldsRequired = true

    /// Wraps `value`, which must be an object.
    init(_ value: JSONValue, path: String) throws(AppStoreError) {
        guard case .object(let object) = value else {
            throw .wrongType(path.isEmpty ? "(top level)" : path, expected: "an object", found: value)
        }
        self.object = object
        self.path = path
    }

    /// The full path of a member.
    func path(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The member's value, nil when absent or `null`.
    func value(_ key: String) -> JSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    /// A string member.
    func string(_ key: String) throws(AppStoreError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else { throw .wrongType(path(key), expected: "a string", found: value) }
        return text
    }

    /// A string member that must be present.
    func requiredString(_ key: String) throws(AppStoreError) -> String {
        guard let text = try string(key) else {
            if ledgerFieldsRequired { throw .missing(path(key)) }
            return ""
        }
        return text
    }

    /// An integer member. Every integer field of Apple's payloads is read here, as Foundation's JSONDecoder
    /// reads an `Int64`/`Int32` property: a number whose value is exactly an integer in range reads however
    /// it is written (`1234567890.0`, `1.23456789e9`); a fraction (`1.5`), a number beyond the range or
    /// another JSON type is an error.
    func int64(_ key: String) throws(AppStoreError) -> Int64? {
        guard let value = value(key) else { return nil }
        if let number = value.exactInt64 { return number }
        guard case .double = value else { throw .wrongType(path(key), expected: "an integer", found: value) }
        throw AppStoreError(
            .wrongType,
            "field \(path(key)) is \(value.serialized()), not an integer in the 64-bit range; the payload does not "
                + "follow Apple's format, so it was not recorded",
            path: path(key))
    }

    /// A 32-bit integer member.
    func int32(_ key: String) throws(AppStoreError) -> Int32? {
        guard let number = try int64(key) else { return nil }
        guard let small = Int32(exactly: number) else {
            throw AppStoreError(
                .invalidValue, "field \(path(key)) is \(number), outside the 32-bit range Apple defines for it",
                path: path(key))
        }
        return small
    }

    /// A date member in milliseconds since the epoch. Apple's libraries decode dates as a `Double` of
    /// milliseconds (`.millisecondsSince1970`), so fractional milliseconds (Xcode's) are accepted and
    /// truncated toward zero.
    func instant(_ key: String) throws(AppStoreError) -> Instant? {
        guard let value = value(key) else { return nil }
        guard let milliseconds = value.int64 else {
            throw .wrongType(path(key), expected: "a number of milliseconds", found: value)
        }
        return Instant(milliseconds: milliseconds)
    }

    /// A date member that must be present.
    func requiredInstant(_ key: String) throws(AppStoreError) -> Instant {
        guard let instant = try instant(key) else {
            if ledgerFieldsRequired { throw .missing(path(key)) }
            return Instant(milliseconds: 0)
        }
        return instant
    }

    /// A boolean member.
    func bool(_ key: String) throws(AppStoreError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let flag) = value else { throw .wrongType(path(key), expected: "a boolean", found: value) }
        return flag
    }

    /// An array member.
    func array(_ key: String) throws(AppStoreError) -> [JSONValue]? {
        guard let value = value(key) else { return nil }
        guard case .array(let elements) = value else {
            throw .wrongType(path(key), expected: "an array", found: value)
        }
        return elements
    }

    /// An array-of-strings member.
    func strings(_ key: String) throws(AppStoreError) -> [String]? {
        guard let elements = try array(key) else { return nil }
        var out: [String] = []
        out.reserveCapacity(elements.count)
        for (i, element) in elements.enumerated() {
            guard case .string(let text) = element else {
                throw .wrongType("\(path(key))[\(i)]", expected: "a string", found: element)
            }
            out.append(text)
        }
        return out
    }

    /// An object member, checked to be an object.
    func objectValue(_ key: String) throws(AppStoreError) -> JSONValue? {
        guard let value = value(key) else { return nil }
        guard case .object = value else { throw .wrongType(path(key), expected: "an object", found: value) }
        return value
    }

    /// A UUID member, in canonical lower-case form.
    /// A UUID member, canonical; judged as Apple's libraries do (`ledgerFieldsRequired` false), any string.
    func uuid(_ key: String) throws(AppStoreError) -> String? {
        guard let text = try string(key) else { return nil }
        guard let canonical = AccountToken.canonical(text) else {
            if !ledgerFieldsRequired { return text }
            throw AppStoreError(
                .invalidValue, "field \(path(key)) is \"\(text)\", which is not a UUID", path: path(key))
        }
        return canonical
    }
}

extension JSONValue {
    /// A short name of the value's JSON type, for error messages.
    var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

extension JSONFields {
    /// An `environment` member (`Sandbox`, `Production`, `Xcode`, `LocalTesting`, or unknown, kept raw).
    func environment(_ key: String = "environment") throws(AppStoreError) -> LedgerEnvironment? {
        try string(key).map(LedgerEnvironment.init(rawValue:))
    }
}

extension JSONFields {
    /// An `appAccountToken` member: canonical lower-case when it is a UUID (as Apple guarantees),
    /// otherwise kept as sent so the purchase is still recorded; an empty string reads as nil.
    func accountToken(_ key: String = "appAccountToken") throws(AppStoreError) -> String? {
        guard let text = try string(key), !text.isEmpty else { return nil }
        return AccountToken.canonical(text) ?? text
    }
}
