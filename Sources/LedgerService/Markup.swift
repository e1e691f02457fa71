/// Text made safe inside HTML and SVG (XML) documents, in element content and in quoted attribute values: the
/// history page and the report pages and charts.
enum Markup {
    /// `text` with `&`, `<`, `>`, `"` and `'` replaced by their character references.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
