import CCurl

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP request the API client sends.
public struct HTTPSRequest: Sendable {
    /// `GET`, `POST`, `PUT`.
    public var method: String
    /// The absolute URL (`https://…`, or `http://` for a loopback test server).
    public var url: String
    /// Header fields, in order.
    public var headers: [(name: String, value: String)]
    /// The body, when the method sends one.
    public var body: [UInt8]?

    /// Creates a request.
    public init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// What the server answered.
public struct HTTPSResponse: Sendable {
    /// The status code (200, 429, …).
    public var status: Int
    /// The header fields of the final response, in order.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header field (names compare case-insensitively).
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}

/// Sends one request and returns the answer: how the API client reaches Apple (a test injects its own).
public protocol HTTPSTransport: Sendable {
    /// Sends `request`; throws ``AppStoreAPIError`` with code `transport`, `timeout` or `responseTooLarge`.
    func send(_ request: HTTPSRequest) throws(AppStoreAPIError) -> HTTPSResponse
}

/// HTTPS over libcurl, one easy handle per request: the system's CA store unless ``caFile`` names another,
/// peer and host verified, no redirects, only `http` and `https`, connect and total timeouts, and a limit on the
/// response body. The only file of the target that calls C.
public struct HTTPSClient: HTTPSTransport {
    /// How long connecting (TCP and TLS) may take, in milliseconds.
    public var connectTimeoutMilliseconds: Int
    /// How long a whole request may take, in milliseconds.
    public var totalTimeoutMilliseconds: Int
    /// A PEM file of CA certificates to trust instead of the system's store (`--api-ca-file`).
    public var caFile: String?
    /// The largest response body accepted.
    public var maxResponseBytes: Int

    /// Creates a client.
    public init(
        connectTimeoutMilliseconds: Int = 10_000, totalTimeoutMilliseconds: Int = 60_000, caFile: String? = nil,
        maxResponseBytes: Int = 16 << 20
    ) {
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.totalTimeoutMilliseconds = totalTimeoutMilliseconds
        self.caFile = caFile
        self.maxResponseBytes = maxResponseBytes
    }

    /// libcurl's global state, set up once (thread-safe since 7.84).
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    public func send(_ request: HTTPSRequest) throws(AppStoreAPIError) -> HTTPSResponse {
        guard Self.initialized, let handle = curl_easy_init() else {
            throw AppStoreAPIError(.transport, "libcurl could not be initialised")
        }
        defer { curl_easy_cleanup(handle) }
        var fields: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(fields) }
        // No `Expect: 100-continue` round trip for small JSON bodies.
        for line in request.headers.map({ "\($0.name): \($0.value)" }) + ["Expect:"] {
            fields = curl_slist_append(fields, line)
        }
        let sink = ResponseSink(limit: maxResponseBytes)
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        var setup = [
            ledger_curl_set_string(handle, CURLOPT_URL, request.url),
            ledger_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"),
            ledger_curl_set_long(handle, CURLOPT_NOSIGNAL, 1),
            ledger_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0),
            ledger_curl_set_long(handle, CURLOPT_SSL_VERIFYPEER, 1),
            ledger_curl_set_long(handle, CURLOPT_SSL_VERIFYHOST, 2),
            ledger_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, connectTimeoutMilliseconds),
            ledger_curl_set_long(handle, CURLOPT_TIMEOUT_MS, totalTimeoutMilliseconds),
            ledger_curl_set_slist(handle, CURLOPT_HTTPHEADER, fields),
            ledger_curl_set_callback(handle, CURLOPT_WRITEFUNCTION, ledgerCurlWriteBody),
            ledger_curl_set_pointer(handle, CURLOPT_WRITEDATA, context.toOpaque()),
            ledger_curl_set_callback(handle, CURLOPT_HEADERFUNCTION, ledgerCurlWriteHeader),
            ledger_curl_set_pointer(handle, CURLOPT_HEADERDATA, context.toOpaque()),
        ]
        if let caFile { setup.append(ledger_curl_set_string(handle, CURLOPT_CAINFO, caFile)) }
        // A loopback server (a test's) is never reached through `$https_proxy`.
        if Self.isLoopback(request.url) { setup.append(ledger_curl_set_string(handle, CURLOPT_NOPROXY, "*")) }
        if let body = request.body {
            setup.append(ledger_curl_set_long(handle, CURLOPT_POSTFIELDSIZE, body.count))
            setup.append(
                body.withUnsafeBytes { bytes in
                    // COPYPOSTFIELDS copies the body (NUL bytes included, given the size set before it).
                    ledger_curl_set_pointer(
                        handle, CURLOPT_COPYPOSTFIELDS,
                        UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))
                })
        }
        if request.method != "GET" || request.body != nil {
            setup.append(ledger_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, request.method))
        }
        if let failed = setup.first(where: { $0 != CURLE_OK }) {
            throw AppStoreAPIError(.transport, "libcurl refused an option: \(Self.describe(failed))")
        }
        let result = curl_easy_perform(handle)
        if sink.overflowed {
            throw AppStoreAPIError(
                .responseTooLarge, "the response from \(Self.origin(request.url)) is over \(maxResponseBytes) bytes")
        }
        guard result == CURLE_OK else {
            let place = "\(request.method) \(Self.origin(request.url))"
            switch result {
            case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM:
                throw AppStoreAPIError(
                    .untrustedServer,
                    "\(place): \(Self.describe(result)); the server's certificate is not trusted by "
                        + (caFile.map { "the CA file \($0)" } ?? "the system's CA store"))
            case CURLE_OPERATION_TIMEDOUT:
                throw AppStoreAPIError(.timeout, "\(place): \(Self.describe(result))")
            case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
                throw AppStoreAPIError(.invalidRequest, "\(place): \(Self.describe(result))")
            default:
                throw AppStoreAPIError(.transport, "\(place): \(Self.describe(result))")
            }
        }
        var status = 0
        _ = ledger_curl_response_code(handle, &status)
        return HTTPSResponse(status: status, headers: sink.headers, body: sink.body)
    }

    /// libcurl's text for a result code.
    static func describe(_ code: CURLcode) -> String {
        guard let text = curl_easy_strerror(code) else { return "libcurl error \(code.rawValue)" }
        return String(cString: text)
    }

    /// The scheme, host and port of a URL, for messages (never its path or query).
    static func origin(_ url: String) -> String {
        let bytes = Array(url.utf8)
        var start = 0
        while start + 2 < bytes.count, bytes[start] != 0x3A || bytes[start + 1] != 0x2F || bytes[start + 2] != 0x2F {
            start += 1
        }
        guard start + 2 < bytes.count else { return "the server" }
        var end = start + 3
        while end < bytes.count, bytes[end] != 0x2F, bytes[end] != 0x3F { end += 1 }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// Whether the URL's host is this machine: exactly `localhost`, `[::1]` or an IPv4 address in 127.0.0.0/8
    /// (`127.0.0.1.example.com` is not).
    public static func isLoopback(_ url: String) -> Bool {
        let origin = origin(url)
        guard let colon = origin.firstIndex(of: ":"), origin[colon...].hasPrefix("://") else { return false }
        var authority = origin[origin.index(colon, offsetBy: 3)...]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let host: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return false }
            host = authority[...close]
        } else {
            host = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        }
        if host.lowercased() == "localhost" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127"
            && parts.allSatisfy { part in
                !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && UInt8(part) != nil
            }
    }

    /// Waits `milliseconds` (the pause between retries).
    public static func pause(milliseconds: Int) {
        guard milliseconds > 0 else { return }
        var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1, errno == EINTR { request = remaining }
    }
}

/// Where libcurl's callbacks put the response (one request, one thread).
private final class ResponseSink {
    let limit: Int
    var body: [UInt8] = []
    var headers: [(name: String, value: String)] = []
    var overflowed = false

    init(limit: Int) { self.limit = limit }

    func header(_ line: String) {
        let trimmed = line.trimmingSuffix { $0.isNewline || $0 == " " }
        if trimmed.hasPrefix("HTTP/") {
            // A new response begins (after a 100 Continue): keep only the final one's fields.
            headers = []
            return
        }
        guard let colon = trimmed.firstIndex(of: ":") else { return }
        let name = String(trimmed[..<colon])
        let value = String(trimmed[trimmed.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
        headers.append((name, value))
    }
}

extension String {
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> String {
        var end = endIndex
        while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
        return String(self[..<end])
    }
}

private func ledgerCurlWriteBody(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context else { return 0 }
    let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard sink.body.count + length <= sink.limit else {
        sink.overflowed = true
        return 0
    }
    if let data, length > 0 {
        data.withMemoryRebound(to: UInt8.self, capacity: length) {
            sink.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
        }
    }
    return length
}

private func ledgerCurlWriteHeader(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context else { return 0 }
    let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard sink.headers.count < 200 else { return length }
    if let data, length > 0 {
        let line = data.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
        sink.header(line)
    }
    return length
}
