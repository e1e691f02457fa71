/// Why a call to the App Store Server API failed: the network, a timeout, Apple's error answer (with its
/// `errorCode` and `errorMessage`), a response the client cannot read, or a key it cannot sign with.
///
/// Never carries the token or the key. Equality is on the code only, so new codes never break callers.
public struct AppStoreAPIError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, opaque classification.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let raw: String
        private init(_ raw: String) { self.raw = raw }
        /// The code's name, e.g. `transport`.
        public var description: String { raw }

        /// The request did not reach Apple, or its answer did not arrive (DNS, TCP, TLS, a reset).
        public static let transport = Code("transport")
        /// The server's certificate is not trusted (or the CA file cannot be used): never retried.
        public static let untrustedServer = Code("untrustedServer")
        /// Connecting or the whole request took longer than allowed.
        public static let timeout = Code("timeout")
        /// The response body is over the client's limit.
        public static let responseTooLarge = Code("responseTooLarge")
        /// Apple answered with an error status (``AppStoreAPIError/httpStatus``, and its `errorCode` when sent).
        public static let apiError = Code("apiError")
        /// A success response the client cannot decode.
        public static let invalidResponse = Code("invalidResponse")
        /// The in-app purchase key cannot be read or cannot sign.
        public static let invalidKey = Code("invalidKey")
        /// A request the client refuses to send (an empty window, a bad base URL).
        public static let invalidRequest = Code("invalidRequest")
    }

    /// What kind of failure.
    public var code: Code
    /// What happened and what to do.
    public var message: String
    /// The HTTP status, for ``Code/apiError``.
    public var httpStatus: Int?
    /// Apple's `errorCode` (e.g. 4290000), when the answer carried one.
    public var errorCode: Int64?
    /// Apple's `errorMessage`, when the answer carried one.
    public var errorMessage: String?
    /// Source file that raised it.
    public var file: String
    /// Source line that raised it.
    public var line: Int

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, httpStatus: Int? = nil, errorCode: Int64? = nil, errorMessage: String? = nil,
        file: String = #fileID, line: Int = #line
    ) {
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.file = file
        self.line = line
    }

    /// Apple's name for ``errorCode`` (`RateLimitExceededError`), when the client knows it.
    public var errorName: String? { errorCode.flatMap(AppStoreAPIErrorNames.name(for:)) }

    /// Whether sending the request again may succeed: 5xx, 429 and Apple's retryable codes.
    public var isRetryable: Bool {
        guard code == .apiError, let httpStatus else { return code == .transport || code == .timeout }
        return httpStatus >= 500 || httpStatus == 429 || AppStoreAPIErrorNames.retryable.contains(errorCode ?? 0)
    }

    public var description: String { message }

    /// Errors are equal when their codes are.
    public static func == (lhs: AppStoreAPIError, rhs: AppStoreAPIError) -> Bool { lhs.code == rhs.code }
    /// Hashes the code only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
