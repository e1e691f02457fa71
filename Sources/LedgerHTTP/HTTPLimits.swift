/// Size limits on a request, enforced by the parser before anything is buffered past them.
public struct HTTPLimits: Sendable, Equatable {
    /// The most bytes of request line plus header fields plus the blank line (431 beyond).
    public var maxHeadBytes: Int
    /// The most bytes of the request line alone (414 beyond).
    public var maxRequestLineBytes: Int
    /// The most header fields (431 beyond).
    public var maxHeaderCount: Int
    /// The most bytes of (decoded) body (413 beyond).
    public var maxBodyBytes: Int
    /// Whether `Transfer-Encoding: chunked` bodies are decoded; when false they are refused with 411.
    public var allowsChunkedBodies: Bool

    /// Creates limits; the defaults are the ledger's: 16 KiB of head, 1 MiB of body.
    public init(
        maxHeadBytes: Int = 16 * 1024, maxRequestLineBytes: Int = 8 * 1024, maxHeaderCount: Int = 100,
        maxBodyBytes: Int = 1 << 20, allowsChunkedBodies: Bool = true
    ) {
        self.maxHeadBytes = maxHeadBytes
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
        self.allowsChunkedBodies = allowsChunkedBodies
    }
}

/// How a request's body is delimited on the wire.
public enum BodyFraming: Sendable, Equatable {
    /// No body.
    case none
    /// Exactly this many bytes follow the head (`Content-Length`).
    case length(Int)
    /// A chunked body follows (`Transfer-Encoding: chunked`).
    case chunked
}

/// A parsed request head: everything before the body, validated.
public struct HTTPRequestHead: Sendable {
    /// The request without its body (``HTTPRequest/body`` is empty).
    public var request: HTTPRequest
    /// How the body is delimited.
    public var framing: BodyFraming
    /// Whether the client sent `Expect: 100-continue` and waits for an interim response before the body.
    public var expectsContinue: Bool
}
