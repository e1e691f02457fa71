/// The responder the server runs: global middlewares around a ``Router``.
///
/// For each request it resolves the route (recording the pattern and parameters on the request and the
/// response), then runs the global middlewares, the route's middlewares and the handler, in that order.
/// Unmatched paths (404) and methods (405 with `Allow`) still pass through the global middlewares. Every
/// error becomes its response via the ``ErrorMiddleware``, so ``respond(to:)`` never throws. The same
/// value answers in-process (tests) and behind an ``HTTPServer``.
public struct HTTPApplication: HTTPResponder {
    private let router: Router
    private let middlewares: [any HTTPMiddleware]
    private let errors: ErrorMiddleware

    /// Creates the application. `middlewares` run outermost first, around every route.
    public init(router: Router, middlewares: [any HTTPMiddleware] = [], errors: ErrorMiddleware = ErrorMiddleware()) {
        self.router = router
        self.middlewares = middlewares
        self.errors = errors
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        var request = request
        let (chain, handler): ([any HTTPMiddleware], HTTPHandler)
        do {
            (chain, handler, _) = try resolve(&request)
        } catch {
            return errors.response(for: error, request: request)
        }
        var response = errors.respond(to: request) { request in
            try Self.run(chain[...], handler: handler, request: request)
        }
        response.route = request.route
        return response
    }

    /// An unknown route or method, or the first refusal of the route's middlewares from the head alone (see
    /// ``HTTPMiddleware/refusal(beforeBody:)``): answered before the client sends the body it announced.
    public func respondBeforeBody(to request: HTTPRequest) -> HTTPResponse? {
        var request = request
        var refusal: (any Error)?
        do {
            let (chain, handler, matched) = try resolve(&request)
            if let error = chain.lazy.compactMap({ $0.refusal(beforeBody: request) }).first {
                refusal = error
            } else if !matched {
                // Unmatched: its handler throws the 404 or 405 whatever the body.
                _ = try handler(request)
            }
        } catch {
            refusal = error
        }
        guard let refusal else { return nil }
        var response = errors.response(for: refusal, request: request)
        response.route = request.route
        return response
    }

    /// The middlewares and handler for `request`, its route and parameters recorded on it, and whether a route
    /// takes it. An unmatched path or method gets a handler that throws its 404 or 405 (after the global
    /// middlewares); a 405's route is the one whose path it named.
    private func resolve(_ request: inout HTTPRequest) throws -> ([any HTTPMiddleware], HTTPHandler, matched: Bool) {
        switch try router.resolve(method: request.method, path: request.path) {
        case .matched(let route, let parameters):
            request.route = route.pattern.description
            request.parameters = parameters
            return (middlewares + route.middlewares, route.handler, true)
        case .notFound:
            return (middlewares, { request in throw HTTPError.notFound(path: request.path) }, false)
        case .methodNotAllowed(let allowed, let pattern):
            // Counted under its route: the path is known, the method is not one it takes.
            request.route = pattern.description
            let allow = allowed.map(\.rawValue).joined(separator: ", ")
            return (
                middlewares,
                { request in
                    throw HTTPError(
                        .methodNotAllowed, code: .methodNotAllowed,
                        message: "\(request.method) is not allowed on \(request.path); use \(allow)",
                        headers: ["Allow": allow])
                },
                false
            )
        }
    }

    /// Runs the middlewares in order, then the handler.
    private static func run(
        _ chain: ArraySlice<any HTTPMiddleware>, handler: HTTPHandler, request: HTTPRequest
    ) throws -> HTTPResponse {
        guard let first = chain.first else { return try handler(request) }
        return try first.respond(to: request) { request in
            try run(chain.dropFirst(), handler: handler, request: request)
        }
    }
}
