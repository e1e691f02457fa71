/// Parses a request target (RFC 9112 §3.2) into a path and decoded query items.
enum RequestTarget {
    /// The parsed parts of a target.
    struct Parts {
        var path: String
        var query: [QueryItem]
    }

    /// Parses origin-form (`/path?query`), absolute-form (`http://host/path?query`) and asterisk-form (`*`).
    static func parse(_ bytes: [UInt8]) throws(HTTPError) -> Parts {
        guard !bytes.isEmpty else { throw .badRequest("the request target is empty; send a path such as /healthz") }
        for byte in bytes where !ASCII.isTargetChar(byte) {
            throw .badRequest("the request target contains a byte that must be percent-encoded")
        }
        if bytes == [UInt8(ascii: "*")] { return Parts(path: "*", query: []) }
        var start = 0
        if bytes[0] != ASCII.slash {
            start = try authorityEnd(bytes)
            if start == bytes.count { return Parts(path: "/", query: []) }
        }
        var pathEnd = bytes.count
        if let question = bytes[start...].firstIndex(of: ASCII.question) { pathEnd = question }
        if let hash = bytes[start...].firstIndex(of: UInt8(ascii: "#")) {
            throw .badRequest("the request target contains a fragment at byte \(hash); clients must not send one")
        }
        let rawPath = bytes[start..<pathEnd]
        if rawPath.isEmpty || rawPath.first != ASCII.slash {
            throw .badRequest("the request path must start with /")
        }
        // Validate escapes in the path now so routing never meets a malformed one.
        _ = try PercentDecoding.decode(rawPath, plusAsSpace: false)
        let path = String(decoding: rawPath, as: UTF8.self)
        var query: [QueryItem] = []
        if pathEnd < bytes.count {
            query = try parseQuery(bytes[(pathEnd + 1)...])
        }
        return Parts(path: path, query: query)
    }

    /// The index just past `scheme://authority` in an absolute-form target.
    private static func authorityEnd(_ bytes: [UInt8]) throws(HTTPError) -> Int {
        let lowered = bytes.prefix(8).map(ASCII.lower)
        let schemeLength: Int
        if lowered.starts(with: Array("http://".utf8)) {
            schemeLength = 7
        } else if lowered.starts(with: Array("https://".utf8)) {
            schemeLength = 8
        } else {
            throw .badRequest("the request target must be a path starting with / (or an http:// URL)")
        }
        var index = schemeLength
        while index < bytes.count, bytes[index] != ASCII.slash, bytes[index] != ASCII.question { index += 1 }
        if index == schemeLength { throw .badRequest("the request target's URL has no host") }
        if index < bytes.count, bytes[index] == ASCII.question {
            throw .badRequest("the request target's URL has a query but no path")
        }
        return index
    }

    /// Splits `a=1&b=2` into decoded items; `+` decodes to a space.
    ///
    /// - Throws: ``HTTPError`` 400 for a malformed escape, or a parameter given twice (`?at=1&at=2`): which one
    ///   counts would be a guess, and a proxy in front may have read the other.
    static func parseQuery(_ bytes: ArraySlice<UInt8>) throws(HTTPError) -> [QueryItem] {
        var items: [QueryItem] = []
        var names: Set<String> = []
        for pair in bytes.split(separator: ASCII.ampersand, omittingEmptySubsequences: true) {
            let name: ArraySlice<UInt8>
            let value: ArraySlice<UInt8>
            if let equals = pair.firstIndex(of: ASCII.equals) {
                name = pair[pair.startIndex..<equals]
                value = pair[(equals + 1)...]
            } else {
                name = pair
                value = []
            }
            let item = QueryItem(
                name: try PercentDecoding.decode(name, plusAsSpace: true),
                value: try PercentDecoding.decode(value, plusAsSpace: true))
            guard names.insert(item.name).inserted else {
                let shown = item.name.utf8.count <= 64 && !item.name.contains("'") ? " '\(item.name)'" : ""
                throw .badRequest("the query gives the parameter\(shown) more than once; give each parameter once")
            }
            items.append(item)
        }
        return items
    }
}

/// Percent-decoding (RFC 3986 §2.1) into UTF-8 text.
public enum PercentDecoding {
    /// Decodes `%XX` escapes (and `+` as a space when asked).
    ///
    /// - Throws: ``HTTPError`` 400 for a truncated or non-hex escape, or bytes that are not UTF-8.
    public static func decode<C: Collection<UInt8>>(_ bytes: C, plusAsSpace: Bool) throws(HTTPError) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        while let byte = iterator.next() {
            if byte == ASCII.percent {
                guard let high = iterator.next().flatMap(ASCII.hexValue),
                    let low = iterator.next().flatMap(ASCII.hexValue)
                else { throw .badRequest("the request target has a malformed %-escape; use %XX with two hex digits") }
                out.append(high << 4 | low)
            } else if byte == ASCII.plus && plusAsSpace {
                out.append(ASCII.space)
            } else {
                out.append(byte)
            }
        }
        guard let text = String(validating: out, as: UTF8.self) else {
            throw .badRequest("the request target decodes to bytes that are not UTF-8")
        }
        return text
    }
}
