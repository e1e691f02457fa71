/// A JSON object: ordered members with lookup by key (the last duplicate wins on lookup).
public struct JSONObject: Hashable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// The members in order.
    public private(set) var members: [(key: String, value: JSONValue)]
    /// Whether every member name is ASCII (false when unknown): then a name is found by its bytes, and
    /// names of another length are passed over without a string comparison.
    private var namesAreASCII: Bool

    /// Creates an object from ordered members.
    public init(_ members: [(key: String, value: JSONValue)] = []) {
        self.init(members, namesAreASCII: members.allSatisfy { Self.isASCII($0.key) })
    }

    /// Creates an object whose names' ASCII-ness the caller knows (the parser saw their bytes).
    init(_ members: [(key: String, value: JSONValue)], namesAreASCII: Bool) {
        self.members = members
        self.namesAreASCII = namesAreASCII
    }

    /// Creates an object from a literal.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements.map { (key: $0.0, value: $0.1) })
    }

    /// Whether `text` is plain ASCII, read from its UTF-8 storage (iterating `utf8` is several times
    /// slower).
    static func isASCII(_ text: String) -> Bool {
        let answer = text.utf8.withContiguousStorageIfAvailable { bytes in
            var high: UInt8 = 0
            for byte in bytes { high |= byte }
            return high < 0x80
        }
        return answer ?? text.utf8.allSatisfy { $0 < 0x80 }
    }

    /// The value of the last member named `key`. Setting replaces it in place or appends it;
    /// setting nil removes every member of that name.
    public subscript(key: String) -> JSONValue? {
        get {
            // Two ASCII strings are equal exactly when their bytes are (under Swift's canonical
            // equivalence a non-ASCII name could equal one of another length, e.g. KELVIN SIGN and K).
            if namesAreASCII, Self.isASCII(key) {
                let length = key.utf8.count
                var i = members.count - 1
                while i >= 0 {
                    if members[i].key.utf8.count == length, members[i].key == key { return members[i].value }
                    i -= 1
                }
                return nil
            }
            var i = members.count - 1
            while i >= 0 {
                if members[i].key == key { return members[i].value }
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
                namesAreASCII = namesAreASCII && Self.isASCII(key)
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
