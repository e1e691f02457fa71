import LedgerCore
import LedgerJSON

/// Reads a legacy `verifyReceipt` object, whose numbers, dates and booleans are JSON strings
/// (`"quantity": "1"`, `"expires_date_ms": "1606292762000"`, `"is_upgraded": "true"`). Native JSON
/// numbers and booleans are accepted too; anything else is a clear error naming the field.
struct LegacyFields {
    /// The typed reader underneath.
    let fields: JSONFields

    /// Wraps `value`, which must be an object.
    init(_ value: JSONValue, path: String) throws(AppStoreError) {
        fields = try JSONFields(value, path: path)
    }

    /// A string member (a number is given in decimal).
    func string(_ key: String) throws(AppStoreError) -> String? {
        guard let value = fields.value(key) else { return nil }
        switch value {
        case .string(let text): return text
        case .integer(let number): return String(number)
        default: throw .wrongType(fields.path(key), expected: "a string", found: value)
        }
    }

    /// An integer member, written as a decimal string or a JSON number.
    func int64(_ key: String) throws(AppStoreError) -> Int64? {
        guard let value = fields.value(key) else { return nil }
        switch value {
        case .integer, .double: return try fields.int64(key)
        case .string(let text):
            guard let number = Int64(text) else {
                throw AppStoreError(
                    .invalidValue, "field \(fields.path(key)) is \"\(text)\", which is not an integer",
                    path: fields.path(key))
            }
            return number
        default: throw .wrongType(fields.path(key), expected: "an integer string", found: value)
        }
    }

    /// A 32-bit integer member.
    func int32(_ key: String) throws(AppStoreError) -> Int32? {
        guard let number = try int64(key) else { return nil }
        guard let small = Int32(exactly: number) else {
            throw AppStoreError(
                .invalidValue, "field \(fields.path(key)) is \(number), outside the 32-bit range",
                path: fields.path(key))
        }
        return small
    }

    /// A boolean member: `"true"`/`"false"`, `"1"`/`"0"` or a JSON boolean.
    func bool(_ key: String) throws(AppStoreError) -> Bool? {
        guard let value = fields.value(key) else { return nil }
        switch value {
        case .bool(let flag): return flag
        case .integer(0), .string("0"), .string("false"): return false
        case .integer(1), .string("1"), .string("true"): return true
        case .string(let text):
            throw AppStoreError(
                .invalidValue, "field \(fields.path(key)) is \"\(text)\", which is not a boolean",
                path: fields.path(key))
        default: throw .wrongType(fields.path(key), expected: "a boolean string", found: value)
        }
    }

    /// A date given as `<name>_ms` (milliseconds), else as `<name>` holding milliseconds (iOS 6-style
    /// receipts) or Apple's `2020-11-25 08:26:02 Etc/GMT` form. The `_pst` form is never needed.
    func date(_ name: String) throws(AppStoreError) -> Instant? {
        if let ms = try int64("\(name)_ms") { return try Self.instant(ms, fields.path("\(name)_ms")) }
        guard let text = try string(name) else { return nil }
        if let ms = Int64(text) { return try Self.instant(ms, fields.path(name)) }
        guard let instant = Self.parseAppleDate(text) else {
            throw AppStoreError(
                .invalidValue,
                "field \(fields.path(name)) is \"\(text)\", which is neither milliseconds nor a date such as "
                    + "\"2020-11-25 08:26:02 Etc/GMT\"", path: fields.path(name))
        }
        return instant
    }

    /// Milliseconds as an instant, within the years 0000 to 9999 like every input time (an unsigned receipt may
    /// say anything; nothing downstream need handle the ends of a 64-bit count).
    static func instant(_ ms: Int64, _ path: String) throws(AppStoreError) -> Instant {
        guard let instant = Instant(inputMilliseconds: ms) else {
            throw AppStoreError(
                .invalidValue, "field \(path) is \(ms) ms, outside the years 0000 to 9999", path: path)
        }
        return instant
    }

    /// Parses `yyyy-MM-dd HH:mm:ss Etc/GMT` (or `GMT`, `UTC`, or ISO 8601 with a zone).
    static func parseAppleDate(_ text: String) -> Instant? {
        for suffix in [" Etc/GMT", " GMT", " UTC"] where text.hasSuffix(suffix) {
            let stem = text.dropLast(suffix.count)
            guard stem.count == 19 else { return nil }
            let iso = stem.prefix(10) + "T" + stem.dropFirst(11) + "Z"
            return Instant(parsing: String(iso))
        }
        return Instant(parsing: text)
    }

    /// An array of objects, or a single object taken as an array of one (iOS 6-style
    /// `latest_receipt_info`).
    func objects(_ key: String) throws(AppStoreError) -> [(value: JSONValue, path: String)] {
        guard let value = fields.value(key) else { return [] }
        switch value {
        case .object: return [(value, fields.path(key))]
        case .array(let elements):
            return elements.enumerated().map { (value: $0.element, path: fields.path("\(key)[\($0.offset)]")) }
        default: throw .wrongType(fields.path(key), expected: "an array of objects", found: value)
        }
    }
}
