import LedgerJSON

/// A response: status, headers and body.
///
/// The server adds `Content-Length`, `Date` and `Connection` itself; handlers set `Content-Type` through the
/// helpers (``json(_:_:)``, ``text(_:_:)``) or ``headers``.
public struct HTTPResponse: Sendable {
    /// The status.
    public var status: HTTPStatus
    /// The header fields, without `Content-Length` (the server computes it).
    public var headers: HTTPHeaders
    /// The body.
    public var body: [UInt8]
    /// The route pattern that answered, for the access log and metrics; never sent. Set by ``HTTPApplication``.
    public var route: String?

    /// Creates a response.
    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
        self.route = nil
    }

    /// A response whose body is JSON text already serialized, with `Content-Type: application/json`.
    public static func json(_ status: HTTPStatus, _ jsonText: String) -> HTTPResponse {
        json(status, bytes: Array(jsonText.utf8))
    }

    /// A response whose body is serialized JSON bytes, with `Content-Type: application/json`.
    public static func json(_ status: HTTPStatus, bytes: [UInt8]) -> HTTPResponse {
        var bytes = bytes
        if bytes.last != ASCII.lf { bytes.append(ASCII.lf) }
        return HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: bytes)
    }

    /// A plain-text response (`text/plain; charset=utf-8`).
    public static func text(_ status: HTTPStatus, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// The response for an error: its status and headers, and the body
    /// `{"error":{"status":"CODE","message":"…"}}`.
    public static func error(_ error: HTTPError) -> HTTPResponse {
        var text = "{\"error\":{\"status\":"
        text += JSONValue.quoted(error.code.rawValue)
        text += ",\"message\":"
        text += JSONValue.quoted(error.message)
        text += "}}"
        var response = json(error.status, text)
        for field in error.headers { response.headers.set(field.name, field.value) }
        return response
    }

    /// The body as UTF-8 text (invalid sequences replaced).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}
