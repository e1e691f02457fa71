/// An HTTP status code with its reason phrase.
public struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    /// The three-digit code, e.g. 404.
    public var code: Int
    /// The reason phrase sent on the status line, e.g. `Not Found`.
    public var reason: String

    /// Creates a status; prefer the static members.
    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code) \(reason)" }

    public static func == (lhs: HTTPStatus, rhs: HTTPStatus) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// 100 Continue, the interim answer to `Expect: 100-continue`.
    public static let `continue` = HTTPStatus(code: 100, reason: "Continue")
    /// 200 OK.
    public static let ok = HTTPStatus(code: 200, reason: "OK")
    /// 201 Created.
    public static let created = HTTPStatus(code: 201, reason: "Created")
    /// 202 Accepted.
    public static let accepted = HTTPStatus(code: 202, reason: "Accepted")
    /// 204 No Content.
    public static let noContent = HTTPStatus(code: 204, reason: "No Content")
    /// 400 Bad Request.
    public static let badRequest = HTTPStatus(code: 400, reason: "Bad Request")
    /// 401 Unauthorized.
    public static let unauthorized = HTTPStatus(code: 401, reason: "Unauthorized")
    /// 403 Forbidden.
    public static let forbidden = HTTPStatus(code: 403, reason: "Forbidden")
    /// 404 Not Found.
    public static let notFound = HTTPStatus(code: 404, reason: "Not Found")
    /// 405 Method Not Allowed.
    public static let methodNotAllowed = HTTPStatus(code: 405, reason: "Method Not Allowed")
    /// 408 Request Timeout.
    public static let requestTimeout = HTTPStatus(code: 408, reason: "Request Timeout")
    /// 409 Conflict.
    public static let conflict = HTTPStatus(code: 409, reason: "Conflict")
    /// 411 Length Required.
    public static let lengthRequired = HTTPStatus(code: 411, reason: "Length Required")
    /// 413 Content Too Large.
    public static let payloadTooLarge = HTTPStatus(code: 413, reason: "Content Too Large")
    /// 414 URI Too Long.
    public static let uriTooLong = HTTPStatus(code: 414, reason: "URI Too Long")
    /// 415 Unsupported Media Type.
    public static let unsupportedMediaType = HTTPStatus(code: 415, reason: "Unsupported Media Type")
    /// 417 Expectation Failed.
    public static let expectationFailed = HTTPStatus(code: 417, reason: "Expectation Failed")
    /// 422 Unprocessable Content.
    public static let unprocessableEntity = HTTPStatus(code: 422, reason: "Unprocessable Content")
    /// 429 Too Many Requests.
    public static let tooManyRequests = HTTPStatus(code: 429, reason: "Too Many Requests")
    /// 431 Request Header Fields Too Large.
    public static let headersTooLarge = HTTPStatus(code: 431, reason: "Request Header Fields Too Large")
    /// 500 Internal Server Error.
    public static let internalServerError = HTTPStatus(code: 500, reason: "Internal Server Error")
    /// 501 Not Implemented.
    public static let notImplemented = HTTPStatus(code: 501, reason: "Not Implemented")
    /// 502 Bad Gateway: what an ``HTTPClient`` reports for a malformed response.
    public static let badGateway = HTTPStatus(code: 502, reason: "Bad Gateway")
    /// 503 Service Unavailable.
    public static let serviceUnavailable = HTTPStatus(code: 503, reason: "Service Unavailable")
    /// 505 HTTP Version Not Supported.
    public static let versionNotSupported = HTTPStatus(code: 505, reason: "HTTP Version Not Supported")

    /// The status for a code, with its standard reason phrase when known.
    public static func code(_ code: Int) -> HTTPStatus {
        for known in all where known.code == code { return known }
        return HTTPStatus(code: code, reason: code < 400 ? "OK" : "Error")
    }

    private static let all: [HTTPStatus] = [
        .continue, .ok, .created, .accepted, .noContent, .badRequest, .unauthorized, .forbidden, .notFound,
        .methodNotAllowed, .requestTimeout, .conflict, .lengthRequired, .payloadTooLarge, .uriTooLong,
        .unsupportedMediaType, .expectationFailed, .unprocessableEntity, .tooManyRequests, .headersTooLarge,
        .internalServerError, .notImplemented, .badGateway, .serviceUnavailable, .versionNotSupported,
    ]
}
