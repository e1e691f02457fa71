/// Requires `Authorization: Bearer TOKEN`, comparing the token in constant time.
///
/// Without a configured token the middleware either lets every request through (read endpoints when
/// `--read-token` is not set) or refuses every request with 403 (admin endpoints without `--admin-token`).
/// A missing or wrong token is 401 with a `WWW-Authenticate: Bearer` challenge; more than one `Authorization` header
/// is 400.
public struct BearerAuth: HTTPMiddleware {
    /// What to do when no token is configured.
    public enum Unconfigured: Sendable {
        /// Let every request through.
        case allow
        /// Refuse every request with 403 and this message (say which flag enables the endpoint).
        case deny(message: String)
    }

    private let token: [UInt8]?
    private let realm: String
    private let unconfigured: Unconfigured

    /// Creates the middleware. An empty `token` counts as no token.
    public init(token: String?, realm: String = "ledger", whenUnconfigured: Unconfigured = .allow) {
        self.token = token.flatMap { $0.isEmpty ? nil : Array($0.utf8) }
        self.realm = realm
        self.unconfigured = whenUnconfigured
    }

    public func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse {
        if let refusal = refusal(beforeBody: request) { throw refusal }
        return try next(request)
    }

    /// The 401, 403 or 400 this middleware answers `request` with, from its headers alone; nil when it passes.
    public func refusal(beforeBody request: HTTPRequest) -> HTTPError? {
        do {
            try check(request)
            return nil
        } catch {
            return error
        }
    }

    /// Throws the answer for a request this middleware does not let through.
    private func check(_ request: HTTPRequest) throws(HTTPError) {
        guard let token else {
            switch unconfigured {
            case .allow: return
            case .deny(let message): throw HTTPError(.forbidden, code: .forbidden, message: message)
            }
        }
        // Two credentials: which one a proxy in front checked cannot be known. Refused, not guessed.
        guard request.headers.values(for: "Authorization").count <= 1 else {
            throw HTTPError(
                .badRequest, code: .badRequest, message: "the request has more than one Authorization header")
        }
        guard let header = request.headers["Authorization"], let presented = Self.bearerToken(in: header) else {
            throw HTTPError(
                .unauthorized, code: .unauthorized,
                message: "this endpoint needs an Authorization: Bearer <token> header",
                headers: ["WWW-Authenticate": "Bearer realm=\"\(realm)\""])
        }
        guard Self.constantTimeEquals(presented, token) else {
            throw HTTPError(
                .unauthorized, code: .unauthorized, message: "the bearer token is not valid for this endpoint",
                headers: ["WWW-Authenticate": "Bearer realm=\"\(realm)\", error=\"invalid_token\""])
        }
    }

    /// The token of a `Bearer TOKEN` credential (scheme case-insensitive), or nil.
    static func bearerToken(in header: String) -> [UInt8]? {
        let bytes = Array(header.utf8)
        let scheme = Array("bearer ".utf8)
        guard bytes.count > scheme.count, zip(bytes, scheme).allSatisfy({ ASCII.lower($0) == $1 }) else {
            return nil
        }
        var start = scheme.count
        while start < bytes.count, bytes[start] == ASCII.space { start += 1 }
        let token = Array(bytes[start...])
        return token.isEmpty ? nil : token
    }

    /// Compares two byte strings in time that depends only on their lengths, not on where they differ.
    public static func constantTimeEquals(_ presented: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference = UInt64(truncatingIfNeeded: presented.count ^ expected.count)
        presented.withUnsafeBufferPointer { p in
            expected.withUnsafeBufferPointer { e in
                for index in 0..<e.count {
                    let other = index < p.count ? p[index] : ~e[index]
                    difference |= UInt64(other ^ e[index])
                }
            }
        }
        return difference == 0
    }
}
