/// An ECDSA signature: the pair (r, s), convertible between the raw fixed-width R‖S form that JOSE
/// (ES256) uses and the DER `SEQUENCE { INTEGER r, INTEGER s }` form that X.509 and libcrypto use.
public struct ECDSASignature: Hashable, Sendable {
    /// R‖S, each half left-padded with zeros to the curve's coordinate size.
    public let rawRepresentation: [UInt8]

    /// Wraps a raw R‖S signature (64 bytes for P-256, 96 for P-384).
    public init(rawRepresentation: [UInt8]) throws(CryptoError) {
        guard rawRepresentation.count == 64 || rawRepresentation.count == 96 else {
            throw CryptoError(
                .invalidEncoding,
                "a raw ECDSA signature must be 64 (P-256) or 96 (P-384) bytes, not \(rawRepresentation.count)"
            )
        }
        self.rawRepresentation = rawRepresentation
    }

    /// Decodes a DER signature for a curve; rejects non-minimal integers and trailing bytes.
    public init(derRepresentation der: [UInt8], curve: ECCurve) throws(CryptoError) {
        let width = curve.coordinateByteCount
        var reader = DERSignatureReader(der)
        guard let (r, s) = reader.read(), reader.atEnd,
            let rawR = Self.fixedWidth(r, width), let rawS = Self.fixedWidth(s, width)
        else {
            throw CryptoError(
                .invalidEncoding, "the DER ECDSA signature is malformed or not for \(curve)")
        }
        self.rawRepresentation = rawR + rawS
    }

    /// The curve size the raw form implies.
    public var coordinateByteCount: Int { rawRepresentation.count / 2 }

    /// The DER form, `SEQUENCE { INTEGER r, INTEGER s }`, with minimal positive integers.
    public var derRepresentation: [UInt8] {
        let half = coordinateByteCount
        let r = Self.derInteger(rawRepresentation[0..<half])
        let s = Self.derInteger(rawRepresentation[half...])
        var out: [UInt8] = [0x30]
        Self.appendLength(r.count + s.count, to: &out)
        out += r
        out += s
        return out
    }

    private static func derInteger(_ magnitude: ArraySlice<UInt8>) -> [UInt8] {
        var bytes = Array(magnitude.drop { $0 == 0 })
        if bytes.isEmpty { bytes = [0] }
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        var out: [UInt8] = [0x02]
        appendLength(bytes.count, to: &out)
        return out + bytes
    }

    private static func appendLength(_ length: Int, to out: inout [UInt8]) {
        if length < 0x80 {
            out.append(UInt8(length))
        } else if length <= 0xFF {
            out += [0x81, UInt8(length)]
        } else {
            out += [0x82, UInt8(length >> 8), UInt8(length & 0xFF)]
        }
    }

    /// A DER integer's content as an unsigned big-endian value of exactly `width` bytes.
    private static func fixedWidth(_ content: ArraySlice<UInt8>, _ width: Int) -> [UInt8]? {
        let magnitude = content.drop { $0 == 0 }
        guard magnitude.count <= width else { return nil }
        return [UInt8](repeating: 0, count: width - magnitude.count) + magnitude
    }
}

/// Reads exactly `SEQUENCE { INTEGER, INTEGER }` with positive, minimally encoded integers.
private struct DERSignatureReader {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    mutating func read() -> (ArraySlice<UInt8>, ArraySlice<UInt8>)? {
        guard let sequence = element(tag: 0x30) else { return nil }
        var inner = DERSignatureReader(Array(sequence))
        guard let r = inner.integer(), let s = inner.integer(), inner.atEnd else { return nil }
        return (r, s)
    }

    private mutating func integer() -> ArraySlice<UInt8>? {
        guard let content = element(tag: 0x02), let first = content.first else { return nil }
        // Negative integers and non-minimal encodings are not valid signature values.
        guard first & 0x80 == 0 else { return nil }
        if content.count > 1, first == 0, content[content.startIndex + 1] & 0x80 == 0 { return nil }
        return content
    }

    private mutating func element(tag: UInt8) -> ArraySlice<UInt8>? {
        guard index + 2 <= bytes.count, bytes[index] == tag else { return nil }
        var length = Int(bytes[index + 1])
        index += 2
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count >= 1, count <= 2, index + count <= bytes.count else { return nil }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(bytes[index])
                index += 1
            }
            // Only the minimal length form is DER.
            guard length >= 0x80, count == 1 || length > 0xFF else { return nil }
        }
        guard index + length <= bytes.count else { return nil }
        defer { index += length }
        return bytes[index..<(index + length)]
    }
}
