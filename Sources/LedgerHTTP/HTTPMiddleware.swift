/// A request handler: synchronous, and allowed to block (a webhook waits for the log's group commit,
/// a feed request long-polls). Throw ``HTTPError`` (or an ``HTTPErrorConvertible``) to answer an error.
public typealias HTTPHandler = @Sendable (HTTPRequest) throws -> HTTPResponse

/// Something that answers every request; the server and in-process tests call it the same way.
public protocol HTTPResponder: Sendable {
    /// The response to `request`. Never throws: errors are already responses here.
    func respond(to request: HTTPRequest) -> HTTPResponse
    /// The answer to a request whose body has not been sent yet (`Expect: 100-continue`), when its head alone
    /// settles it (an unknown route, a missing token); nil when the body is wanted.
    func respondBeforeBody(to request: HTTPRequest) -> HTTPResponse?
}

extension HTTPResponder {
    /// Wants every body.
    public func respondBeforeBody(to request: HTTPRequest) -> HTTPResponse? { nil }
}

/// A step around a handler: it may answer by itself (e.g. 401), change the request, or change the
/// response `next` produced.
public protocol HTTPMiddleware: Sendable {
    /// Answers `request`, calling `next` to run the rest of the chain.
    func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse
    /// The error it would answer `request` with from its head alone, before any body is read; nil when it
    /// would let it through (or needs the body to tell).
    func refusal(beforeBody request: HTTPRequest) -> HTTPError?
}

extension HTTPMiddleware {
    /// Refuses nothing from the head alone.
    public func refusal(beforeBody request: HTTPRequest) -> HTTPError? { nil }
}

/// Turns any error thrown further in into its response, so outer middlewares see a response.
///
/// ``HTTPError`` and ``HTTPErrorConvertible`` errors keep their status and message; any other error is a 500
/// whose body says only that the server failed (the error itself goes to `report`, never to the client).
public struct ErrorMiddleware: HTTPMiddleware {
    private let report: @Sendable (HTTPRequest, any Error) -> Void

    /// Creates the middleware; `report` sees errors that were not HTTP errors (e.g. to log them).
    public init(report: @escaping @Sendable (HTTPRequest, any Error) -> Void = { _, _ in }) {
        self.report = report
    }

    public func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) -> HTTPResponse {
        do {
            return try next(request)
        } catch {
            return response(for: error, request: request)
        }
    }

    /// The response for an error thrown while answering `request`.
    public func response(for error: any Error, request: HTTPRequest) -> HTTPResponse {
        if let error = error as? HTTPError { return .error(error) }
        if let convertible = error as? any HTTPErrorConvertible { return .error(convertible.httpError) }
        report(request, error)
        return .error(
            HTTPError(
                .internalServerError, code: .internalError,
                message: "the server failed to answer this request; it has been logged, retry later"))
    }
}
