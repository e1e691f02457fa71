/// The requests of one connection, framed from its bytes as they arrive in pieces of any size: the event loop's
/// parsing, with no socket and no clock, so that fuzzing and tests drive exactly what a connection runs.
///
/// A request goes through two phases: its head (searched for its end incrementally, never twice over the same
/// bytes), then its body by its framing (`Content-Length`, or chunked, decoded as it comes). ``next(limits:)``
/// reports a parsed head first (the connection may answer from it, e.g. refuse `Expect: 100-continue`), then the
/// whole request. Pipelined requests stay buffered until the connection asks for the next one.
package struct RequestFramer {
    /// What the bytes buffered so far make.
    package enum Event {
        /// Nothing more until more bytes arrive.
        case needMore
        /// A request's head was parsed; its body, if any, is next.
        case head(HTTPRequestHead)
        /// A whole request, and the wire bytes it took (head and body).
        case request(HTTPRequest, bytesIn: Int)
        /// The bytes are not a request the server accepts; nothing more is framed on this connection.
        case failed(HTTPError, bytesIn: Int)
    }

    private enum Phase {
        /// Searching for the end of a head; `searched` bytes past `start` are known not to hold it.
        case head(searched: Int)
        /// Reading the body of `request`, whose head took `headLength` bytes; `bodyBytesIn` wire bytes of the body
        /// are consumed so far.
        case body(
            request: HTTPRequest, framing: BodyFraming, decoder: ChunkedBodyDecoder?, headLength: Int,
            bodyBytesIn: Int)
        case failed
    }

    private var buffer: [UInt8] = []
    private var start = 0
    private var phase = Phase.head(searched: 0)

    /// An empty framer.
    package init() {}

    /// Bytes received and not yet framed into a request (the start of the next ones).
    package var bufferedByteCount: Int { buffer.count - start }

    /// Wire bytes of the current request received so far, for the access log of a request that fails or times out.
    package var currentBytesIn: Int {
        switch phase {
        case .head, .failed: return buffer.count - start
        case .body(_, _, _, let headLength, let bodyBytesIn): return headLength + bodyBytesIn
        }
    }

    /// Whether the current request's body has not fully arrived (an `Expect: 100-continue` client waits to be told to
    /// send it).
    package var awaitsBody: Bool {
        guard case .body(_, let framing, _, _, _) = phase else { return false }
        switch framing {
        case .none: return false
        case .length(let length): return length > buffer.count - start
        case .chunked: return buffer.count == start
        }
    }

    /// Adds bytes read from the connection.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
    }

    /// Frames what the buffer holds as far as it goes.
    package mutating func next(limits: HTTPLimits) -> Event {
        switch phase {
        case .failed:
            return .needMore
        case .head(let searched):
            compact()
            let parsed: (head: HTTPRequestHead, length: Int)?
            do {
                parsed = try HTTPRequestParser.parseHead(buffer[start...], limits: limits, searchFrom: searched)
            } catch {
                return fail(error, bytesIn: buffer.count - start)
            }
            guard let (head, length) = parsed else {
                phase = .head(searched: buffer.count - start)
                return .needMore
            }
            start += length
            let decoder = head.framing == .chunked ? ChunkedBodyDecoder(limits: limits) : nil
            phase = .body(
                request: head.request, framing: head.framing, decoder: decoder, headLength: length,
                bodyBytesIn: 0)
            return .head(head)
        case .body(var request, let framing, var decoder, let headLength, var bodyBytesIn):
            switch framing {
            case .none:
                break
            case .length(let length):
                guard buffer.count - start >= length else { return .needMore }
                request.body = Array(buffer[start..<(start + length)])
                start += length
                bodyBytesIn = length
            case .chunked:
                // Hold the decoder only here while it grows, so that feeding it does not copy its body.
                phase = .failed
                do {
                    let used = try decoder!.feed(buffer[start...])
                    start += used
                    bodyBytesIn += used
                } catch {
                    return fail(error, bytesIn: headLength + bodyBytesIn)
                }
                guard decoder!.isComplete else {
                    phase = .body(
                        request: request, framing: framing, decoder: decoder, headLength: headLength,
                        bodyBytesIn: bodyBytesIn)
                    // Drop the wire bytes decoded so far: chunk-size lines with extensions may be a thousand times the
                    // data they frame, and the buffer must stay bounded by the decoded body, not the bytes sent.
                    compact()
                    return .needMore
                }
                request.body = decoder!.body
            }
            phase = .head(searched: 0)
            return .request(request, bytesIn: headLength + bodyBytesIn)
        }
    }

    private mutating func fail(_ error: HTTPError, bytesIn: Int) -> Event {
        phase = .failed
        return .failed(error, bytesIn: bytesIn)
    }

    /// Drops consumed bytes from the buffer when that is cheap or worthwhile.
    private mutating func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
            start = 0
        } else if start > 32 * 1024 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
    }
}
