import LedgerHTTP
import Testing

private func bytes(_ text: String) -> ArraySlice<UInt8> { ArraySlice(text.utf8) }

@Suite("Request parser")
struct HTTPRequestParserTests {
    /// Requests a client could send by mistake or in malice, and the status each must get.
    static let refused: [(String, Int, String)] = [
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello", 400, "duplicate length"),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\nhello", 400, "length list"),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\nhello", 400, "signed length"),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x5\r\n\r\nhello", 400, "hex length"),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n", 400, "empty length"),
        (
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n", 400,
            "TE+CL"
        ),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501, "other coding"),
        (
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", 501,
            "two TE"
        ),
        ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, "TE in 1.0"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1048577\r\n\r\n", 413, "body over 1 MiB"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999\r\n\r\n", 413, "huge length"),
        ("GET / HTTP/1.1\r\n\r\n", 400, "no Host"),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "two Hosts"),
        ("GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505, "HTTP/2"),
        ("GET / HTTP/1.2\r\nHost: a\r\n\r\n", 505, "HTTP/1.2"),
        ("GET / HTTX/1.1\r\nHost: a\r\n\r\n", 400, "bad version"),
        ("GET /  HTTP/1.1\r\nHost: a\r\n\r\n", 400, "double space"),
        ("GET\r\nHost: a\r\n\r\n", 400, "no target"),
        ("G(T / HTTP/1.1\r\nHost: a\r\n\r\n", 400, "method not a token"),
        ("GET nopath HTTP/1.1\r\nHost: a\r\n\r\n", 400, "target without /"),
        ("GET /a%zz HTTP/1.1\r\nHost: a\r\n\r\n", 400, "bad escape in path"),
        ("GET /a?x=%4 HTTP/1.1\r\nHost: a\r\n\r\n", 400, "truncated escape in query"),
        ("GET /a?x=%ff HTTP/1.1\r\nHost: a\r\n\r\n", 400, "query not UTF-8"),
        ("GET /a#frag HTTP/1.1\r\nHost: a\r\n\r\n", 400, "fragment"),
        ("GET / HTTP/1.1\nHost: a\n\n", 400, "bare LF"),
        ("GET / HTTP/1.1\r\nHost: a\rX: b\r\n\r\n", 400, "bare CR"),
        ("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", 400, "obs-fold"),
        ("GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400, "space before colon"),
        ("GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", 400, "no colon"),
        ("GET / HTTP/1.1\r\nHost: a\r\n: empty\r\n\r\n", 400, "empty name"),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\u{0}b\r\n\r\n", 400, "NUL in value"),
        ("POST / HTTP/1.1\r\nHost: a\r\nExpect: magic\r\nContent-Length: 1\r\n\r\nx", 417, "unknown Expect"),
        ("\u{16}\u{3}\u{1}\u{2}\u{0}", 400, "TLS handshake"),
    ]

    @Test(arguments: refused)
    func malformedRequestsGetTheirStatus(request: String, status: Int, what: String) {
        #expect(throws: HTTPError.self, "\(what)") { try HTTPRequestParser.parse(bytes(request)) }
        do {
            _ = try HTTPRequestParser.parse(bytes(request))
        } catch {
            #expect(error.status.code == status, "\(what): \(error.message)")
        }
    }

    @Test func headOver16KiBIs431() {
        let big = "GET / HTTP/1.1\r\nHost: a\r\n" + String(repeating: "X-Filler: 0123456789abcdef\r\n", count: 700)
        #expect {
            _ = try HTTPRequestParser.parse(bytes(big))
        } throws: { ($0 as? HTTPError)?.status == .headersTooLarge }
        // Refused as soon as 16 KiB arrived without a blank line, not only when the head completes.
        #expect {
            _ = try HTTPRequestParser.parse(bytes(String(big.prefix(16 * 1024 + 10))))
        } throws: { ($0 as? HTTPError)?.status == .headersTooLarge }
    }

    @Test func tooManyHeaderFieldsIs431() {
        let many = "GET / HTTP/1.1\r\nHost: a\r\n" + (0..<120).map { "X-\($0): 1\r\n" }.joined() + "\r\n"
        #expect {
            _ = try HTTPRequestParser.parse(bytes(many))
        } throws: { ($0 as? HTTPError)?.status == .headersTooLarge }
    }

    @Test func longRequestLineIs414() {
        let long = "GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: a\r\n\r\n"
        #expect {
            _ = try HTTPRequestParser.parse(bytes(long))
        } throws: { ($0 as? HTTPError)?.status == .uriTooLong }
    }

    @Test func validRequestParsesCompletely() throws {
        let text =
            "POST /webhooks/apple?x=1&y=a+b&z HTTP/1.1\r\nHost: h\r\ncontent-length: 5\r\nX-Trace:  t1 \r\n\r\nhello"
        let parsed = try #require(try HTTPRequestParser.parse(bytes(text)))
        #expect(parsed.consumed == text.utf8.count)
        let request = parsed.request
        #expect(request.method == .post)
        #expect(request.path == "/webhooks/apple")
        #expect(
            request.queryItems == [
                QueryItem(name: "x", value: "1"), QueryItem(name: "y", value: "a b"), QueryItem(name: "z", value: ""),
            ])
        #expect(request.headers["Content-Length"] == "5")
        #expect(request.headers["x-trace"] == "t1")
        #expect(request.bodyText == "hello")
        #expect(request.keepAlive)
    }

    @Test func incompleteInputAsksForMore() throws {
        let text = "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"
        for cut in 0..<text.utf8.count {
            let prefix = ArraySlice(Array(text.utf8)[0..<cut])
            #expect(try HTTPRequestParser.parse(prefix) == nil, "cut at \(cut)")
        }
    }

    @Test func pipelinedRequestsParseOneAfterAnother() throws {
        let text = "GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n"
        let all = bytes(text)
        let first = try #require(try HTTPRequestParser.parse(all))
        #expect(first.request.path == "/a")
        let second = try #require(try HTTPRequestParser.parse(all[(all.startIndex + first.consumed)...]))
        #expect(second.request.path == "/b")
        #expect(first.consumed + second.consumed == all.count)
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\nHost: h\r\n\r\n", true),
        ("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", false),
        ("GET / HTTP/1.1\r\nHost: h\r\nConnection: Upgrade, CLOSE\r\n\r\n", false),
        ("GET / HTTP/1.0\r\n\r\n", false),
        ("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true),
    ])
    func keepAliveFollowsVersionRules(request: String, keepAlive: Bool) throws {
        let parsed = try #require(try HTTPRequestParser.parse(bytes(request)))
        #expect(parsed.request.keepAlive == keepAlive)
    }

    @Test(arguments: [
        ("POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n", true),
        ("POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n", true),
        ("GET / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n\r\n", false),
        // An HTTP/1.0 client must never get a 1xx response: its 100-continue is ignored.
        ("POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n", false),
    ])
    func expectContinueOnlyForHTTP11RequestsWithABody(request: String, expectsContinue: Bool) throws {
        let parsed = try #require(try HTTPRequestParser.parseHead(bytes(request)))
        #expect(parsed.head.expectsContinue == expectsContinue)
    }

    @Test func leadingBlankLinesAreSkipped() throws {
        let parsed = try #require(try HTTPRequestParser.parse(bytes("\r\n\r\nGET /x HTTP/1.1\r\nHost: h\r\n\r\n")))
        #expect(parsed.request.path == "/x")
        #expect(parsed.consumed == 4 + 28)
    }

    @Test func absoluteFormTargetUsesItsPath() throws {
        let parsed = try #require(
            try HTTPRequestParser.parse(
                bytes("GET http://example.com/healthz?a=1 HTTP/1.1\r\nHost: example.com\r\n\r\n")))
        #expect(parsed.request.path == "/healthz")
        #expect(parsed.request.query("a") == "1")
    }

    @Test func expectContinueIsReported() throws {
        let head = try #require(
            try HTTPRequestParser.parseHead(
                bytes("POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 3\r\n\r\n")))
        #expect(head.head.expectsContinue)
        #expect(head.head.framing == .length(3))
    }

    @Test func chunkedBodiesCanBeRefused() {
        let limits = HTTPLimits(allowsChunkedBodies: false)
        #expect {
            _ = try HTTPRequestParser.parse(
                bytes("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"), limits: limits)
        } throws: { ($0 as? HTTPError)?.status == .lengthRequired }
    }
}
