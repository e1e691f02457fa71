/// The HTTP version of a request: 1.0 or 1.1.
public struct HTTPVersion: Hashable, Sendable, CustomStringConvertible {
    /// The major version.
    public var major: Int
    /// The minor version.
    public var minor: Int

    /// Creates a version.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// HTTP/1.0: connections close after each response unless the client asks for keep-alive.
    public static let http10 = HTTPVersion(major: 1, minor: 0)
    /// HTTP/1.1: connections stay open unless either side says `Connection: close`.
    public static let http11 = HTTPVersion(major: 1, minor: 1)

    public var description: String { "HTTP/\(major).\(minor)" }
}

/// One decoded `name=value` pair of a query string.
public struct QueryItem: Hashable, Sendable {
    /// The decoded name.
    public var name: String
    /// The decoded value; empty when the item had no `=`.
    public var value: String

    /// Creates a query item.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A complete HTTP request: head, body, and what routing learned about it.
public struct HTTPRequest: Sendable {
    /// The method, e.g. `GET`.
    public var method: HTTPMethod
    /// The request target exactly as sent, e.g. `/v1/events?after=3`.
    public var target: String
    /// The path part of the target, still percent-encoded, e.g. `/v1/users/42/entitlement`.
    public var path: String
    /// The decoded query items in order.
    public var queryItems: [QueryItem]
    /// The HTTP version.
    public var version: HTTPVersion
    /// The header fields.
    public var headers: HTTPHeaders
    /// The body (empty when there is none); chunked bodies arrive here already decoded.
    public var body: [UInt8]
    /// The peer as `host:port`, when the request came over a socket.
    public var remoteAddress: String?
    /// The route pattern that matched, e.g. `/v1/users/{id}/entitlement`; set by the ``HTTPApplication``.
    public var route: String?
    /// The decoded values of the route's `{param}` segments; set by the ``HTTPApplication``.
    public var parameters: [String: String]

    /// Creates a request, parsing `target` into ``path`` and ``queryItems``.
    ///
    /// - Throws: ``HTTPError`` 400 when the target is not origin-form or its escapes are malformed.
    public init(
        method: HTTPMethod, target: String, version: HTTPVersion = .http11, headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [], remoteAddress: String? = nil
    ) throws(HTTPError) {
        let parts = try RequestTarget.parse(Array(target.utf8))
        self.init(
            method: method, target: target, parts: parts, version: version, headers: headers, body: body,
            remoteAddress: remoteAddress)
    }

    /// Creates a request from an already parsed target.
    init(
        method: HTTPMethod, target: String, parts: RequestTarget.Parts, version: HTTPVersion, headers: HTTPHeaders,
        body: [UInt8] = [], remoteAddress: String? = nil
    ) {
        self.method = method
        self.target = target
        self.path = parts.path
        self.queryItems = parts.query
        self.version = version
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.route = nil
        self.parameters = [:]
    }

    /// The first decoded value of the query item `name`, or nil.
    public func query(_ name: String) -> String? {
        for item in queryItems where item.name == name { return item.value }
        return nil
    }

    /// The decoded value of the route parameter `name` (from a `{name}` segment), or nil.
    public func parameter(_ name: String) -> String? { parameters[name] }

    /// The body as UTF-8 text (invalid sequences replaced).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// Whether the connection may carry another request after this one, by the HTTP/1.0 and 1.1 rules.
    public var keepAlive: Bool {
        if headers.containsToken("close", in: "Connection") { return false }
        if version == .http11 { return true }
        return headers.containsToken("keep-alive", in: "Connection")
    }
}
