/// HTTP header fields in the order they were sent, looked up case-insensitively.
///
/// Names compare ASCII case-insensitively, as HTTP requires; values are kept exactly as received
/// (with surrounding whitespace removed by the parser).
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field.
    public struct Field: Sendable, Equatable {
        /// The field name as sent, e.g. `Content-Type`.
        public var name: String
        /// The field value.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields in order.
    public private(set) var fields: [Field]

    /// An empty set of headers.
    public init() { fields = [] }

    /// Headers from name/value pairs, in order.
    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// The first value for `name`, or nil.
    public subscript(name: String) -> String? {
        for field in fields where Self.equalsIgnoringCase(field.name, name) { return field.value }
        return nil
    }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.equalsIgnoringCase($0.name, name) }.map(\.value)
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// Appends a field, keeping any existing fields of that name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { Self.equalsIgnoringCase($0.name, name) }
    }

    /// Whether a comma-separated header (e.g. `Connection`) lists `token`, case-insensitively.
    public func containsToken(_ token: String, in name: String) -> Bool {
        for value in values(for: name) {
            for part in value.split(separator: ",") {
                let trimmed = part.trimmingASCIIWhitespace()
                if Self.equalsIgnoringCase(trimmed, token) { return true }
            }
        }
        return false
    }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// ASCII case-insensitive comparison of two header names or tokens.
    static func equalsIgnoringCase<A: StringProtocol, B: StringProtocol>(_ a: A, _ b: B) -> Bool {
        let x = a.utf8
        let y = b.utf8
        guard x.count == y.count else { return false }
        for (p, q) in zip(x, y) where p != q && ASCII.lower(p) != ASCII.lower(q) { return false }
        return true
    }
}

extension StringProtocol {
    /// The string without leading and trailing spaces and tabs.
    func trimmingASCIIWhitespace() -> Substring {
        var s = Substring(self)
        while let first = s.utf8.first, first == ASCII.space || first == ASCII.tab { s = s.dropFirst() }
        while let last = s.utf8.last, last == ASCII.space || last == ASCII.tab { s = s.dropLast() }
        return s
    }
}
