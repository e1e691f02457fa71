/// A path pattern such as `/v1/users/{id}/entitlement`: literal segments and `{name}` parameters.
public struct RoutePattern: Hashable, Sendable, CustomStringConvertible {
    enum Segment: Hashable, Sendable {
        case literal(String)
        case parameter(String)
    }

    /// The pattern as written.
    public let description: String
    let segments: [Segment]

    /// Parses a pattern; it must start with `/`. A segment `{name}` matches any one non-empty segment.
    public init(_ pattern: String) {
        precondition(pattern.hasPrefix("/"), "a route pattern must start with /: \(pattern)")
        description = pattern
        segments = pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { part in
            if part.hasPrefix("{") && part.hasSuffix("}") && part.count > 2 {
                return .parameter(String(part.dropFirst().dropLast()))
            }
            return .literal(String(part))
        }
    }

    /// How many segments are literal: the more, the more specific the pattern.
    var specificity: Int {
        segments.reduce(0) { count, segment in
            if case .literal = segment { return count + 1 }
            return count
        }
    }

    /// The parameters when the decoded path segments match, else nil.
    func match(_ pathSegments: [String]) -> [String: String]? {
        guard pathSegments.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, value) in zip(segments, pathSegments) {
            switch segment {
            case .literal(let literal):
                if literal != value { return nil }
            case .parameter(let name):
                if value.isEmpty { return nil }
                parameters[name] = value
            }
        }
        return parameters
    }

    /// Splits a percent-encoded path into decoded segments (an encoded `/` stays inside its segment).
    static func decodedSegments(of path: String) throws(HTTPError) -> [String] {
        var out: [String] = []
        for part in path.utf8.split(separator: ASCII.slash, omittingEmptySubsequences: false).dropFirst() {
            out.append(try PercentDecoding.decode(part, plusAsSpace: false))
        }
        return out
    }
}
