// The checks of the HTTP fuzz target: the request parser and the event loop's request framer.
//
// `Scripts/fuzz SECONDS` compiles this file and `FuzzEntry.swift` together with the parser's sources (no SwiftPM, so
// `-sanitize=fuzzer,address` applies to the parser itself) with `-D FUZZING -D FUZZ_HTTP`. `swift run LedgerFuzz http
// FILE...` runs each file through the same checks, so a crash found by the fuzzer becomes a reproducible command.

#if !FUZZING
    import LedgerHTTP
#endif

/// The limits both checks parse under: small, so that inputs reach them.
let fuzzLimits = HTTPLimits(maxHeadBytes: 2048, maxRequestLineBytes: 1024, maxHeaderCount: 20, maxBodyBytes: 4096)

/// Runs one input through the parser and the framer.
func checkHTTPInput(_ bytes: [UInt8]) {
    checkParser(bytes)
    checkFramer(bytes)
}

/// Runs one input through the parser and checks what must hold for any input:
/// - it returns nil (incomplete), throws an ``HTTPError`` with a 4xx/5xx status, or returns a request that
///   used between 1 and all of the bytes, with a body within the limit;
/// - the parse is prefix-stable: a cut before the end of an accepted request is incomplete, not an error;
/// - a parsed request, written out again in canonical form, parses back to the same request.
func checkParser(_ bytes: [UInt8]) {
    let limits = fuzzLimits
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

/// Frames the input as a connection reads it — in pieces of sizes the input chooses, each followed by as many
/// requests as the bytes so far make — and checks that it gives the same pipelined requests, and the same refusal,
/// as parsing the whole input at once, request after request.
func checkFramer(_ bytes: [UInt8]) {
    var expected: [HTTPRequest] = []
    var expectedRefusal: HTTPStatus?
    var rest = bytes[...]
    while !rest.isEmpty {
        do {
            guard let (request, used) = try HTTPRequestParser.parse(rest, limits: fuzzLimits) else { break }
            expected.append(request)
            rest = rest[(rest.startIndex + used)...]
        } catch {
            expectedRefusal = error.status
            break
        }
    }

    var framer = RequestFramer()
    var framed: [HTTPRequest] = []
    var refusal: HTTPStatus?
    var offset = 0
    var piece = 0
    reading: while offset < bytes.count {
        let size = min(bytes.count - offset, 1 + Int(bytes[piece % bytes.count]) % 61)
        piece += 1
        bytes[offset..<(offset + size)].withUnsafeBytes { framer.append($0) }
        offset += size
        framing: while true {
            switch framer.next(limits: fuzzLimits) {
            case .needMore: break framing
            case .head: continue framing
            case .request(let request, _): framed.append(request)
            case .failed(let error, _):
                refusal = error.status
                break reading
            }
        }
    }
    guard framed.count == expected.count else {
        fatalError("framed \(framed.count) requests in pieces, parsed \(expected.count) at once")
    }
    for (piecewise, whole) in zip(framed, expected) {
        guard piecewise.method == whole.method, piecewise.target == whole.target, piecewise.body == whole.body,
            piecewise.headers == whole.headers, piecewise.version == whole.version,
            piecewise.keepAlive == whole.keepAlive
        else { fatalError("a request framed in pieces differs from the one parsed at once") }
    }
    guard refusal?.code == expectedRefusal?.code else {
        fatalError(
            "framed in pieces: refused \(refusal.map(String.init(describing:)) ?? "nothing"); "
                + "parsed at once: refused \(expectedRefusal.map(String.init(describing:)) ?? "nothing")")
    }
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
