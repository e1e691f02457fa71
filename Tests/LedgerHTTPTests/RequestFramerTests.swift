import LedgerHTTP
import Testing

@Suite("The event loop's request framer")
struct RequestFramerTests {
    /// Three pipelined requests: no body, a `Content-Length` body, a chunked body.
    let pipelined = Array(
        ("GET /healthz HTTP/1.1\r\nHost: h\r\n\r\n"
            + "POST /webhooks/apple HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"
            + "POST /webhooks/apple HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n").utf8)

    /// Feeds `bytes` in pieces of `size`, framing after each; the requests framed, and the refusal if any.
    func frame(_ bytes: [UInt8], pieces size: Int, limits: HTTPLimits = HTTPLimits()) -> (
        requests: [(path: String, body: String, bytesIn: Int)], refusal: HTTPStatus?
    ) {
        var framer = RequestFramer()
        var requests: [(String, String, Int)] = []
        for offset in stride(from: 0, to: bytes.count, by: size) {
            bytes[offset..<min(offset + size, bytes.count)].withUnsafeBytes { framer.append($0) }
            while true {
                switch framer.next(limits: limits) {
                case .needMore: break
                case .head: continue
                case .request(let request, let bytesIn):
                    requests.append((request.path, request.bodyText, bytesIn))
                    continue
                case .failed(let error, _): return (requests, error.status)
                }
                break
            }
        }
        return (requests, nil)
    }

    @Test(arguments: [1, 2, 7, 64, 4096])
    func framesPipelinedRequestsWhateverThePieces(size: Int) {
        let (requests, refusal) = frame(pipelined, pieces: size)
        #expect(refusal == nil)
        #expect(requests.map(\.path) == ["/healthz", "/webhooks/apple", "/webhooks/apple"])
        #expect(requests.map(\.body) == ["", "hello", "abcde"])
        #expect(requests.map(\.bytesIn).reduce(0, +) == pipelined.count)
    }

    @Test func reportsTheHeadBeforeTheBodyArrives() {
        var framer = RequestFramer()
        let head = Array(
            "POST /webhooks/apple HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n".utf8)
        head.withUnsafeBytes { framer.append($0) }
        guard case .head(let parsed) = framer.next(limits: HTTPLimits()) else {
            Issue.record("no head")
            return
        }
        #expect(parsed.expectsContinue)
        #expect(framer.awaitsBody)
        guard case .needMore = framer.next(limits: HTTPLimits()) else {
            Issue.record("a request without its body")
            return
        }
        #expect(framer.currentBytesIn == head.count)
        Array("abc".utf8).withUnsafeBytes { framer.append($0) }
        guard case .request(let request, let bytesIn) = framer.next(limits: HTTPLimits()) else {
            Issue.record("no request")
            return
        }
        #expect(request.bodyText == "abc")
        #expect(bytesIn == head.count + 3)
        #expect(framer.bufferedByteCount == 0)
    }

    @Test func refusesAnOverlongHeadAndFramesNothingAfter() {
        var limits = HTTPLimits()
        limits.maxHeadBytes = 256
        let bytes =
            Array(("GET / HTTP/1.1\r\nX-Long: " + String(repeating: "a", count: 400) + "\r\n\r\n").utf8)
            + pipelined
        let (requests, refusal) = frame(bytes, pieces: 10, limits: limits)
        #expect(requests.isEmpty)
        #expect(refusal?.code == 431)
    }

    /// Request lines at and around the limit, and defects on either side of it: framed in pieces of any size, each
    /// is answered as when it arrives at once (a fuzzed input once got 400 in pieces and 414 at once).
    @Test(
        arguments: [
            ("a line of exactly the limit", "GET /" + String(repeating: "a", count: 114) + " HTTP/1.1", nil),
            ("one byte over the limit", "GET /" + String(repeating: "a", count: 115) + " HTTP/1.1", 414),
            ("a bad method byte in a line over the limit", "GE\u{7F}T /" + String(repeating: "a", count: 200), 400),
            ("a bare LF past the limit", "GET /" + String(repeating: "a", count: 160) + "\n", 414),
            ("a method over the limit", String(repeating: "G", count: 300), 414),
        ] as [(String, String, Int?)])
    func judgesARequestLineAsWhenItArrivesAtOnce(_ name: String, line: String, status: Int?) throws {
        var limits = HTTPLimits()
        limits.maxRequestLineBytes = 128
        limits.maxHeadBytes = 512
        let bytes = Array((line + "\r\nHost: h\r\n\r\n").utf8)
        var atOnce: Int?
        do {
            _ = try HTTPRequestParser.parse(bytes[...], limits: limits)
        } catch {
            atOnce = error.status.code
        }
        #expect(atOnce == status, "\(name): parsed at once")
        for size in [1, 2, 7, 61, 127, 128, 129, 130, bytes.count] {
            let (requests, refusal) = frame(bytes, pieces: size, limits: limits)
            #expect(refusal?.code == status, "\(name): in pieces of \(size)")
            #expect(requests.count == (status == nil ? 1 : 0), "\(name): in pieces of \(size)")
        }
    }
}
