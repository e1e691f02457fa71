import LedgerErrors

/// Why a call to the App Store Server API failed: the network, a timeout, Apple's error answer (with its
/// `errorCode` and `errorMessage`), a response the client cannot read, or a key it cannot sign with.
///
/// Never carries the token or the key. Equality is on the code only, so new codes never break callers.
public struct AppStoreAPIError: LedgerError {
    /// A stable, opaque classification.
    public typealias Code = ErrorCode<AppStoreAPIError>

    /// The code, message and origin of the error.
    public var detail: ErrorDetail<Code>
    /// The HTTP status, for ``Code/apiError``.
    public var httpStatus: Int?
    /// Apple's `errorCode` (e.g. 4290000), when the answer carried one.
    public var errorCode: Int64?
    /// Apple's `errorMessage`, when the answer carried one.
    public var errorMessage: String?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, httpStatus: Int? = nil, errorCode: Int64? = nil, errorMessage: String? = nil,
        file: String = #fileID, line: Int = #line
    ) {
        detail = ErrorDetail(code, message, file: file, line: line)
        self.httpStatus = httpStatus
        self.errorCode = errorCode
        self.errorMessage = errorMessage
    }

    /// Apple's name for ``errorCode`` (`RateLimitExceededError`), when the client knows it.
    public var errorName: String? { errorCode.flatMap(AppStoreAPIErrorNames.name(for:)) }

    /// Whether sending the request again may succeed: 5xx, 429 and Apple's retryable codes.
    public var isRetryable: Bool {
        guard code == .apiError, let httpStatus else { return code == .transport || code == .timeout }
        return httpStatus >= 500 || httpStatus == 429 || AppStoreAPIErrorNames.retryable.contains(errorCode ?? 0)
    }
}

extension ErrorCode where Domain == AppStoreAPIError {
    /// The request did not reach Apple, or its answer did not arrive (DNS, TCP, TLS, a reset).
    public static var transport: Self { Self("transport") }
    /// The server's certificate is not trusted (or the CA file cannot be used): never retried.
    public static var untrustedServer: Self { Self("untrustedServer") }
    /// Connecting or the whole request took longer than allowed.
    public static var timeout: Self { Self("timeout") }
    /// The response body is over the client's limit.
    public static var responseTooLarge: Self { Self("responseTooLarge") }
    /// Apple answered with an error status (``AppStoreAPIError/httpStatus``, and its `errorCode` when sent).
    public static var apiError: Self { Self("apiError") }
    /// A success response the client cannot decode.
    public static var invalidResponse: Self { Self("invalidResponse") }
    /// The in-app purchase key cannot be read or cannot sign.
    public static var invalidKey: Self { Self("invalidKey") }
    /// A request the client refuses to send (an empty window, a bad base URL).
    public static var invalidRequest: Self { Self("invalidRequest") }
}
