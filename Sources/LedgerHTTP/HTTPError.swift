import LedgerErrors

/// The error every failure in the HTTP layer turns into: an HTTP status, a stable machine code, a message,
/// an optional cause and where it was raised.
///
/// An `HTTPError` thrown by a handler or middleware becomes the response
/// `{"error":{"status":"CODE","message":"…"}}` with its ``status``. Equality is on the code only, so new
/// codes never break callers.
public struct HTTPError: LedgerError {
    /// A stable, opaque, machine-readable classification, written as the `status` of a JSON error body.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code as it appears in JSON error bodies, e.g. `NOT_FOUND`.
        public let rawValue: String

        /// A code of your own, e.g. an App Store verification status such as `VERIFICATION_FAILURE`.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        public var description: String { rawValue }

        /// The request is malformed (400).
        public static let badRequest = Code("BAD_REQUEST")
        /// The request lacks valid credentials (401).
        public static let unauthorized = Code("UNAUTHORIZED")
        /// The credentials are valid but not allowed here, or the endpoint is disabled (403).
        public static let forbidden = Code("FORBIDDEN")
        /// No route matches the path (404).
        public static let notFound = Code("NOT_FOUND")
        /// A route matches the path but not the method (405).
        public static let methodNotAllowed = Code("METHOD_NOT_ALLOWED")
        /// The request head or body did not arrive in time (408).
        public static let requestTimeout = Code("REQUEST_TIMEOUT")
        /// A body was sent without a length the server accepts (411).
        public static let lengthRequired = Code("LENGTH_REQUIRED")
        /// The body is larger than the server accepts (413).
        public static let payloadTooLarge = Code("PAYLOAD_TOO_LARGE")
        /// The request target is longer than the server accepts (414).
        public static let uriTooLong = Code("URI_TOO_LONG")
        /// The `Expect` header asks for something the server does not do (417).
        public static let expectationFailed = Code("EXPECTATION_FAILED")
        /// The body is well-formed but its content was refused (422).
        public static let unprocessable = Code("UNPROCESSABLE")
        /// The request head is larger than the server accepts (431).
        public static let headersTooLarge = Code("HEADERS_TOO_LARGE")
        /// The handler failed in a way it did not describe (500).
        public static let internalError = Code("INTERNAL_ERROR")
        /// The request uses a feature the server does not implement, e.g. a transfer coding (501).
        public static let notImplemented = Code("NOT_IMPLEMENTED")
        /// An ``HTTPClient`` received a response it cannot read (502).
        public static let malformedResponse = Code("MALFORMED_RESPONSE")
        /// The server cannot take the request now: too many connections, shutting down, storage down (503).
        public static let unavailable = Code("UNAVAILABLE")
        /// The request's HTTP version is not 1.0 or 1.1 (505).
        public static let versionNotSupported = Code("HTTP_VERSION_NOT_SUPPORTED")
    }

    /// The HTTP status the error is answered with.
    public var status: HTTPStatus
    /// The code, the message (sent to the client), the cause (never sent) and the origin of the error.
    public var detail: ErrorDetail<Code>
    /// Extra response headers, e.g. `Allow` for 405 or `WWW-Authenticate` for 401.
    public var headers: HTTPHeaders

    /// Creates an error answered with `status`.
    public init(
        _ status: HTTPStatus, code: Code, message: String, headers: HTTPHeaders = HTTPHeaders(),
        cause: (any Error & Sendable)? = nil, file: String = #fileID, line: Int = #line
    ) {
        self.status = status
        detail = ErrorDetail(code, message, cause: cause, file: file, line: line)
        self.headers = headers
    }

    /// `STATUS CODE: message`, with the cause when there is one.
    public var description: String {
        let suffix = cause.map { " (cause: \($0))" } ?? ""
        return "\(status.code) \(code): \(message)\(suffix)"
    }
}

extension HTTPError {
    /// 400 with a message naming what is malformed.
    public static func badRequest(_ message: String, file: String = #fileID, line: Int = #line) -> HTTPError {
        HTTPError(.badRequest, code: .badRequest, message: message, file: file, line: line)
    }

    /// 404 for a path no route serves.
    public static func notFound(path: String, file: String = #fileID, line: Int = #line) -> HTTPError {
        HTTPError(
            .notFound, code: .notFound, message: "no route serves \(path); check the path against the API docs",
            file: file, line: line)
    }
}

/// An error that knows how it should be answered over HTTP.
///
/// Adopt it in another module's error type so handlers can throw that error directly; the
/// ``ErrorMiddleware`` turns it into its ``httpError``.
public protocol HTTPErrorConvertible: Error {
    /// The HTTP error this error is answered with.
    var httpError: HTTPError { get }
}
