/// An incremental decoder for `Transfer-Encoding: chunked` request bodies (RFC 9112 §7.1).
///
/// Feed it bytes as they arrive; it consumes whole lines and chunk data, leaves an incomplete line for
/// the next call, and stops right after the final blank line. Chunk extensions and trailer fields are
/// validated and discarded. The decoded body, the size lines and the trailers are all bounded by
/// ``HTTPLimits``.
public struct ChunkedBodyDecoder: Sendable {
    private enum State: Sendable {
        case size
        case data(remaining: Int)
        case dataEnd
        case trailers
        case done
    }

    private var state = State.size
    private var trailerBytes = 0
    private let limits: HTTPLimits
    /// The longest chunk-size line (with extensions) accepted.
    static let maxSizeLine = 1024

    /// The body decoded so far.
    public private(set) var body: [UInt8] = []

    /// Whether the final chunk and trailers have been read.
    public var isComplete: Bool {
        if case .done = state { return true }
        return false
    }

    /// A decoder enforcing `limits`.
    public init(limits: HTTPLimits) { self.limits = limits }

    /// Consumes as much of `bytes` as forms whole lines or chunk data.
    ///
    /// - Returns: how many bytes were used; the rest must be passed again, with more, on the next call.
    /// - Throws: ``HTTPError`` 400 for malformed framing, 413 when the body exceeds the limit, 431 when the
    ///   trailers do.
    public mutating func feed(_ bytes: ArraySlice<UInt8>) throws(HTTPError) -> Int {
        var index = bytes.startIndex
        loop: while index < bytes.endIndex {
            switch state {
            case .done:
                break loop
            case .size:
                guard let end = try lineEnd(bytes, from: index, limit: Self.maxSizeLine) else { break loop }
                let size = try Self.parseSizeLine(bytes[index..<end])
                if size == 0 {
                    state = .trailers
                } else {
                    guard size <= limits.maxBodyBytes - body.count else {
                        throw HeaderSemantics.payloadTooLarge(limits)
                    }
                    state = .data(remaining: size)
                }
                index = end + 2
            case .data(let remaining):
                let take = min(remaining, bytes.endIndex - index)
                body.append(contentsOf: bytes[index..<(index + take)])
                index += take
                state = take == remaining ? .dataEnd : .data(remaining: remaining - take)
            case .dataEnd:
                guard bytes.endIndex - index >= 2 else { break loop }
                guard bytes[index] == ASCII.cr, bytes[index + 1] == ASCII.lf else {
                    throw .badRequest("a chunk of the chunked body is not followed by CRLF; check the chunk sizes")
                }
                index += 2
                state = .size
            case .trailers:
                let remainingAllowance = limits.maxHeadBytes - trailerBytes
                guard let end = try lineEnd(bytes, from: index, limit: remainingAllowance) else { break loop }
                if end == index {
                    state = .done
                } else {
                    _ = try HeaderFields.parseField(bytes[index..<end])
                }
                trailerBytes += end + 2 - index
                index = end + 2
            }
        }
        return index - bytes.startIndex
    }

    /// The CR of the next CRLF, nil when more bytes are needed, or an error when the line exceeds `limit`.
    private func lineEnd(_ bytes: ArraySlice<UInt8>, from: Int, limit: Int) throws(HTTPError) -> Int? {
        let window = bytes[from..<min(bytes.endIndex, from + max(0, limit))]
        if let end = try HTTPRequestParser.findLineEnd(window, from: from) { return end }
        if window.count >= limit {
            if case .trailers = state {
                throw HTTPError(
                    .headersTooLarge, code: .headersTooLarge,
                    message: "the chunked body's trailers exceed \(limits.maxHeadBytes) bytes")
            }
            throw .badRequest("a chunk-size line of the chunked body exceeds \(Self.maxSizeLine) bytes")
        }
        return nil
    }

    /// Parses `1*HEXDIG [BWS ; extensions]` into the chunk size.
    private static func parseSizeLine(_ line: ArraySlice<UInt8>) throws(HTTPError) -> Int {
        var size = 0
        var index = line.startIndex
        while index < line.endIndex, let digit = ASCII.hexValue(line[index]) {
            size = size << 4 | Int(digit)
            index += 1
            if index - line.startIndex > 8 {
                throw .badRequest("a chunk size of the chunked body has more than 8 hex digits")
            }
        }
        guard index > line.startIndex else {
            throw .badRequest("a chunk of the chunked body does not start with a hex size")
        }
        while index < line.endIndex, line[index] == ASCII.space || line[index] == ASCII.tab { index += 1 }
        if index < line.endIndex {
            guard line[index] == ASCII.semicolon, line[index...].allSatisfy(ASCII.isFieldValueChar) else {
                throw .badRequest("a chunk-size line of the chunked body is malformed")
            }
        }
        return size
    }
}
