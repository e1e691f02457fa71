// The libFuzzer target for the HTTP request parser, and a replayer for its findings.
//
// `Scripts/fuzz SECONDS` compiles this file together with the parser's sources (no SwiftPM, so
// `-sanitize=fuzzer,address` applies to the parser itself) with `-D FUZZING`. Built by SwiftPM as
// `LedgerFuzzHTTP`, it replays inputs: `swift run LedgerFuzzHTTP FILE...` runs each file through the same
// checks, so a crash found by the fuzzer becomes a reproducible command.

#if !FUZZING
    import LedgerHTTP
#endif

/// Runs one input through the parser and checks what must hold for any input:
/// - it returns nil (incomplete), throws an ``HTTPError`` with a 4xx/5xx status, or returns a request that
///   used between 1 and all of the bytes, with a body within the limit;
/// - the parse is prefix-stable: a cut before the end of an accepted request is incomplete, not an error;
/// - a parsed request, written out again in canonical form, parses back to the same request.
func checkParser(_ bytes: [UInt8]) {
    let limits = HTTPLimits(maxHeadBytes: 2048, maxRequestLineBytes: 1024, maxHeaderCount: 20, maxBodyBytes: 4096)
    let parsed: (request: HTTPRequest, consumed: Int)?
    do {
        parsed = try HTTPRequestParser.parse(bytes[...], limits: limits)
    } catch {
        guard error.status.code >= 400 && error.status.code < 600 else { fatalError("bad status \(error.status)") }
        return
    }
    guard let (request, consumed) = parsed else { return }
    guard consumed > 0 && consumed <= bytes.count else { fatalError("consumed \(consumed) of \(bytes.count)") }
    guard request.body.count <= limits.maxBodyBytes else { fatalError("body over the limit") }

    let cut = Int(bytes[0]) * consumed / 256
    do {
        if try HTTPRequestParser.parse(bytes[0..<cut], limits: limits) != nil {
            fatalError("a prefix of \(cut) bytes of a \(consumed)-byte request parsed as complete")
        }
    } catch {
        fatalError("a prefix of \(cut) bytes of an accepted request was refused: \(error)")
    }

    // Header values keep obs-text bytes (0x80–0xFF) as U+FFFD, three bytes each when written back: the canonical
    // form may be up to three times longer than the head it came from.
    var roomy = limits
    roomy.maxHeadBytes = limits.maxHeadBytes * 3 + 64
    roomy.maxRequestLineBytes = limits.maxRequestLineBytes * 3
    let again: (request: HTTPRequest, consumed: Int)?
    do {
        again = try HTTPRequestParser.parse(canonical(request)[...], limits: roomy)
    } catch {
        fatalError("the canonical form of an accepted request was refused: \(error)")
    }
    guard let (copy, _) = again, copy.method == request.method, copy.path == request.path,
        copy.queryItems == request.queryItems, copy.body == request.body, copy.version == request.version,
        copy.keepAlive == request.keepAlive
    else { fatalError("the canonical form parsed differently") }
}

/// The request written back with `Content-Length` framing.
func canonical(_ request: HTTPRequest) -> [UInt8] {
    var text = "\(request.method) \(request.target) \(request.version)\r\n"
    for field in request.headers {
        let name = field.name.lowercased()
        if name == "content-length" || name == "transfer-encoding" || name == "expect" { continue }
        text += "\(field.name): \(field.value)\r\n"
    }
    if !request.body.isEmpty { text += "Content-Length: \(request.body.count)\r\n" }
    text += "\r\n"
    return Array(text.utf8) + request.body
}

#if FUZZING
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzHTTPParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        guard let data, size > 0 else { return 0 }
        checkParser(Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }
#else
    import LedgerTesting

    @main
    struct ReplayFuzzInputs {
        static func main() {
            replayFuzzInputs(
                CommandLine.arguments.dropFirst(),
                usage: "LedgerFuzzHTTP FILE...  (replays fuzzer inputs through the parser checks)", check: checkParser)
        }
    }
#endif
