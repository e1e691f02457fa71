import CCrypto
import LedgerErrors

/// The error every operation in `LedgerCrypto` throws: an opaque code, a message, an optional cause
/// and where it was raised.
///
/// Equality is on the code only, so new codes never break callers.
public struct CryptoError: PlainLedgerError {
    /// A stable, opaque classification of a cryptographic failure.
    public typealias Code = ErrorCode<CryptoError>

    /// The code, message, cause and origin of the error.
    public var detail: ErrorDetail<Code>

    /// Creates an error from its detail.
    public init(detail: ErrorDetail<Code>) { self.detail = detail }

    /// An error whose message ends with libcrypto's own explanation, taken (and cleared) from the
    /// thread's OpenSSL error queue.
    static func openSSL(
        _ code: Code, _ message: String, file: String = #fileID, line: Int = #line
    ) -> CryptoError {
        let reasons = OpenSSLErrorQueue.drain()
        let detail = reasons.isEmpty ? "" : " (libcrypto: \(reasons.joined(separator: "; ")))"
        return CryptoError(code, message + detail, file: file, line: line)
    }
}

extension ErrorCode where Domain == CryptoError {
    /// Bytes or text that should hold a key, certificate or signature could not be decoded
    /// (bad DER, bad PEM, wrong length).
    public static var invalidEncoding: Self { Self("invalidEncoding") }
    /// A key is not an elliptic-curve key on P-256 or P-384, or does not fit the operation.
    public static var unsupportedKey: Self { Self("unsupportedKey") }
    /// An algorithm the ledger does not accept (e.g. a certificate signed with RSA or SHA-1).
    public static var unsupportedAlgorithm: Self { Self("unsupportedAlgorithm") }
    /// libcrypto failed an operation that should not fail (allocation, signing, encoding).
    public static var libraryFailure: Self { Self("libraryFailure") }
    /// A caller passed a value the operation cannot use (e.g. an empty validity window).
    public static var invalidArgument: Self { Self("invalidArgument") }
}

/// The per-thread error queue of libcrypto.
enum OpenSSLErrorQueue {
    /// Removes every queued error and returns their texts, oldest first.
    static func drain() -> [String] {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            if reasons.count < 4 {
                reasons.append(
                    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        }
        return reasons
    }

    /// Forgets queued errors after an expected failure (e.g. a signature that does not verify), so
    /// they do not leak into the next error message.
    static func clear() { ERR_clear_error() }
}
