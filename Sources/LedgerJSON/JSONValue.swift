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

/// A JSON object: ordered members with lookup by key (the last duplicate wins on lookup).
public struct JSONObject: Hashable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// The members in order.
    public private(set) var members: [(key: String, value: JSONValue)]

    /// Creates an object from ordered members.
    public init(_ members: [(key: String, value: JSONValue)] = []) {
        self.members = members
    }

    /// Creates an object from a literal.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.members = elements.map { (key: $0.0, value: $0.1) }
    }

    /// The value of the last member named `key`. Setting replaces it in place or appends it;
    /// setting nil removes every member of that name.
    public subscript(key: String) -> JSONValue? {
        get {
            // Two strings whose first bytes are different ASCII characters differ even under canonical
            // equivalence (an ASCII character is a starter with no decomposition), so most members are
            // told apart by one byte; the rest take `==`, which may equate different bytes.
            let first = key.utf8.first ?? 0
            var i = members.count - 1
            while i >= 0 {
                let other = members[i].key.utf8.first ?? 0
                if first == other || (first | other) >= 0x80 || first == 0 || other == 0,
                    members[i].key == key
                {
                    return members[i].value
                }
                i -= 1
            }
            return nil
        }
        set {
            guard let newValue else {
                members.removeAll { $0.key == key }
                return
            }
            if let index = members.lastIndex(where: { $0.key == key }) {
                members[index].value = newValue
            } else {
                members.append((key: key, value: newValue))
            }
        }
    }

    /// The keys in order.
    public var keys: [String] { members.map(\.key) }

    /// The number of members.
    public var count: Int { members.count }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        members.makeIterator()
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for member in members {
            hasher.combine(member.key)
            hasher.combine(member.value)
        }
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
