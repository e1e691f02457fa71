/// An HTTP request method, kept as its raw token so unknown methods parse and are answered 405.
public struct HTTPMethod: Hashable, Sendable, CustomStringConvertible {
    /// The method token as sent, e.g. `GET`. Methods are case-sensitive.
    public let rawValue: String

    /// A method from its token.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// GET.
    public static let get = HTTPMethod("GET")
    /// HEAD: answered like GET without the body.
    public static let head = HTTPMethod("HEAD")
    /// POST.
    public static let post = HTTPMethod("POST")
    /// PUT.
    public static let put = HTTPMethod("PUT")
    /// DELETE.
    public static let delete = HTTPMethod("DELETE")
    /// PATCH.
    public static let patch = HTTPMethod("PATCH")
    /// OPTIONS.
    public static let options = HTTPMethod("OPTIONS")
}
