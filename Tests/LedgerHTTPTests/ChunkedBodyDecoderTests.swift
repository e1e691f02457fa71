import LedgerHTTP
import Testing

@Suite("Chunked request bodies")
struct ChunkedBodyDecoderTests {
    let request = "POST /webhooks/apple HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"

    @Test func decodesChunksExtensionsAndTrailers() throws {
        let body = "5;name=value\r\nhello\r\n7 \r\n, world\r\n0\r\nX-Checksum: abc\r\n\r\n"
        let text = request + body + "GET /next"
        let parsed = try #require(try HTTPRequestParser.parse(ArraySlice(text.utf8)))
        #expect(parsed.request.bodyText == "hello, world")
        #expect(parsed.consumed == (request + body).utf8.count)
    }

    @Test func decodesTheSameWhenFedOneByteAtATime() throws {
        let body = Array("a\r\n0123456789\r\nA\r\nabcdefghij\r\n0\r\n\r\n".utf8)
        var decoder = ChunkedBodyDecoder(limits: HTTPLimits())
        var pending: [UInt8] = []
        for byte in body {
            pending.append(byte)
            let used = try decoder.feed(pending[...])
            pending.removeFirst(used)
        }
        #expect(decoder.isComplete)
        #expect(pending.isEmpty)
        #expect(String(decoding: decoder.body, as: UTF8.self) == "0123456789abcdefghij")
    }

    @Test(arguments: [
        ("zz\r\nhello\r\n0\r\n\r\n", 400),
        ("5\r\nhelloXX0\r\n\r\n", 400),
        ("123456789\r\n", 400),
        ("5 x\r\nhello\r\n0\r\n\r\n", 400),
        ("100001\r\n", 413),
        ("5\r\nhello\r\n0\r\nbad trailer\r\n\r\n", 400),
    ])
    func malformedChunksAreRefused(body: String, status: Int) {
        #expect {
            _ = try HTTPRequestParser.parse(ArraySlice((request + body).utf8))
        } throws: { ($0 as? HTTPError)?.status.code == status }
    }

    @Test func manySmallChunksOverTheLimitAre413() {
        var decoder = ChunkedBodyDecoder(limits: HTTPLimits(maxBodyBytes: 100))
        let chunk = Array("10\r\n0123456789abcdef\r\n".utf8)
        #expect {
            for _ in 0..<10 { _ = try decoder.feed(chunk[...]) }
        } throws: { ($0 as? HTTPError)?.status == .payloadTooLarge }
    }
}
