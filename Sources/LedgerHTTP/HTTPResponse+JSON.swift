import LedgerJSON

extension HTTPResponse {
    /// A response whose body is `value` as compact JSON (one line), with `Content-Type: application/json`.
    public static func json(_ status: HTTPStatus, _ value: JSONValue) -> HTTPResponse {
        json(status, bytes: value.serializedBytes(.compact))
    }

    /// A `200 OK` response with `value` as its JSON body.
    public static func json(_ value: JSONValue) -> HTTPResponse {
        json(.ok, value)
    }
}

extension HTTPRequest {
    /// The body parsed as JSON.
    ///
    /// - Throws: ``HTTPError`` 400 (`BAD_REQUEST`) naming what is wrong when the body is not JSON.
    public func jsonBody() throws(HTTPError) -> JSONValue {
        do {
            return try JSONValue.parse(body)
        } catch {
            throw HTTPError(
                .badRequest, code: .badRequest, message: "the request body is not valid JSON: \(error)", cause: error)
        }
    }
}
