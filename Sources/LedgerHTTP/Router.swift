/// Maps a method and a path pattern to a handler and its own middlewares.
///
/// Build it once at start-up, then hand it to an ``HTTPApplication``. A path that matches no pattern is
/// 404; a path that matches a pattern under other methods only is 405 with `Allow`. `HEAD` is served by
/// the `GET` route (the server sends the headers only). When several patterns match, the one with the
/// most literal segments wins (`/v1/users/me` before `/v1/users/{id}`).
public struct Router: Sendable {
    struct Route: Sendable {
        var method: HTTPMethod
        var pattern: RoutePattern
        var middlewares: [any HTTPMiddleware]
        var handler: HTTPHandler
    }

    /// What the router found for a request.
    enum Resolution {
        case matched(Route, parameters: [String: String])
        case notFound
        /// The path is a route's (`pattern`, the most specific) but not for this method.
        case methodNotAllowed(allowed: [HTTPMethod], pattern: RoutePattern)
    }

    private(set) var routes: [Route] = []

    /// An empty router.
    public init() {}

    /// Adds a route; `middlewares` run (in order, outermost first) only for this route.
    public mutating func on(
        _ method: HTTPMethod, _ pattern: String, middlewares: [any HTTPMiddleware] = [],
        _ handler: @escaping HTTPHandler
    ) {
        routes.append(Route(method: method, pattern: RoutePattern(pattern), middlewares: middlewares, handler: handler))
    }

    /// Adds a `GET` (and `HEAD`) route.
    public mutating func get(
        _ pattern: String, middlewares: [any HTTPMiddleware] = [], _ handler: @escaping HTTPHandler
    ) {
        on(.get, pattern, middlewares: middlewares, handler)
    }

    /// Adds a `POST` route.
    public mutating func post(
        _ pattern: String, middlewares: [any HTTPMiddleware] = [], _ handler: @escaping HTTPHandler
    ) {
        on(.post, pattern, middlewares: middlewares, handler)
    }

    /// Adds a `PUT` route.
    public mutating func put(
        _ pattern: String, middlewares: [any HTTPMiddleware] = [], _ handler: @escaping HTTPHandler
    ) {
        on(.put, pattern, middlewares: middlewares, handler)
    }

    /// Adds a `DELETE` route.
    public mutating func delete(
        _ pattern: String, middlewares: [any HTTPMiddleware] = [], _ handler: @escaping HTTPHandler
    ) {
        on(.delete, pattern, middlewares: middlewares, handler)
    }

    /// The patterns registered, in order, e.g. for documentation or metrics.
    public var patterns: [String] { routes.map(\.pattern.description) }

    /// Finds the route for `method` and the percent-encoded `path`.
    func resolve(method: HTTPMethod, path: String) throws(HTTPError) -> Resolution {
        let segments = try RoutePattern.decodedSegments(of: path)
        let wanted = method == .head ? HTTPMethod.get : method
        var best: (Route, [String: String])?
        var allowed: [HTTPMethod] = []
        var pattern: RoutePattern?
        for route in routes {
            guard let parameters = route.pattern.match(segments) else { continue }
            if pattern == nil || route.pattern.specificity > pattern!.specificity { pattern = route.pattern }
            if route.method == wanted {
                if best == nil || route.pattern.specificity > best!.0.pattern.specificity {
                    best = (route, parameters)
                }
            }
            if !allowed.contains(route.method) { allowed.append(route.method) }
            if route.method == .get && !allowed.contains(.head) { allowed.append(.head) }
        }
        if let (route, parameters) = best { return .matched(route, parameters: parameters) }
        guard let pattern else { return .notFound }
        return .methodNotAllowed(allowed: allowed, pattern: pattern)
    }
}
