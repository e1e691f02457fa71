/// A JSON value, decoded once at the edge.
///
/// Integers that fit `Int64` stay exact (Apple's dates are integer milliseconds); other numbers are
/// `double`. Objects keep their key order, so output is deterministic and faithful.
public enum JSONValue: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number without fraction or exponent that fits `Int64`.
    case integer(Int64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, in key order.
    case object(JSONObject)

    /// The string, when this is one.
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer value: an integer, or a double with no fractional part that fits (truncated toward
    /// zero when fractional, as Apple's libraries do with Xcode's fractional milliseconds).
    public var int64: Int64? {
        switch self {
        case .integer(let value): return value
        case .double(let value):
            guard value.isFinite, value >= -9.2e18, value <= 9.2e18 else { return nil }
            return Int64(value.rounded(.towardZero))
        default: return nil
        }
    }

    /// The number as an integer when its value is exactly one that fits `Int64`, however it is written:
    /// `1234567890`, `1234567890.0` and `1.23456789e9` all read as 1234567890, as Foundation's
    /// JSONDecoder reads an integer field; nil for `1.5`, a number beyond `Int64`, and non-numbers.
    public var exactInt64: Int64? {
        switch self {
        case .integer(let value): return value
        case .double(let value): return Int64(exactly: value)
        default: return nil
        }
    }

    /// The number as a double.
    public var double: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// The boolean, when this is one.
    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The object, when this is one.
    public var object: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The array, when this is one.
    public var array: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool { self == .null }

    /// The member named `key`, when this is an object that has it.
    public subscript(key: String) -> JSONValue? {
        object?[key]
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension JSONValue {
    /// A string, or `null` when nil.
    public static func string(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    /// An integer, or `null` when nil.
    public static func integer(_ value: Int64?) -> JSONValue { value.map(JSONValue.integer) ?? .null }
    /// An integer from any fixed-width integer.
    public static func int<T: BinaryInteger>(_ value: T) -> JSONValue { .integer(Int64(value)) }
    /// A boolean, or `null` when nil.
    public static func bool(_ value: Bool?) -> JSONValue { value.map(JSONValue.bool) ?? .null }
}
