/// Connection strings: which ones name PostgreSQL, and how to show one without its password.
public enum PostgresURL {
    /// Whether `text` is a PostgreSQL URI (`postgres://…` or `postgresql://…`).
    public static func isPostgres(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    /// The connection string with any password replaced by `***`: the `user:password@` part of a URI, and
    /// `password=` in its query or in `key=value` form.
    public static func redacted(_ text: String) -> String {
        var characters = Array(text)
        if let scheme = find(Array("://"), in: characters, from: 0) {
            let start = scheme + 3
            let end = characters[start...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? characters.endIndex
            if let at = characters[start..<end].lastIndex(of: "@"),
                let colon = characters[start..<at].firstIndex(of: ":")
            {
                characters.replaceSubrange((colon + 1)..<at, with: Array("***"))
            }
        }
        let key = Array("password=")
        var position = 0
        while let found = find(key, in: characters, from: position) {
            let valueStart = found + key.count
            let valueEnd =
                characters[valueStart...].firstIndex(where: { $0 == "&" || $0 == " " }) ?? characters.endIndex
            characters.replaceSubrange(valueStart..<valueEnd, with: Array("***"))
            position = valueStart + 3
        }
        return String(characters)
    }

    /// The first index of `needle` in `haystack` at or after `from`.
    private static func find(_ needle: [Character], in haystack: [Character], from: Int) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        var index = from
        while index + needle.count <= haystack.count {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
