/// The labels of one metric series, kept sorted by name so equal sets compare equal.
public struct MetricLabels: Hashable, Sendable, ExpressibleByDictionaryLiteral {
    /// The name/value pairs, sorted by name.
    public let pairs: [(name: String, value: String)]

    /// Labels from name/value pairs.
    public init(_ pairs: [String: String]) {
        self.pairs = pairs.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    public static func == (lhs: MetricLabels, rhs: MetricLabels) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) { $0.name == $1.name && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for pair in pairs {
            hasher.combine(pair.name)
            hasher.combine(pair.value)
        }
    }

    /// `{a="1",b="2"}`, or the empty string without labels; `extra` is appended (e.g. `le` for buckets).
    func rendered(extra: (String, String)? = nil) -> String {
        var all = pairs
        if let extra { all.append((name: extra.0, value: extra.1)) }
        if all.isEmpty { return "" }
        return "{" + all.map { "\($0.name)=\"\(Self.escape($0.value))\"" }.joined(separator: ",") + "}"
    }

    private static func escape(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}
