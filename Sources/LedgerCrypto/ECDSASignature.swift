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
        guard let (r, s) = Self.integers(der), let rawR = Self.fixedWidth(r, width),
            let rawS = Self.fixedWidth(s, width)
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
        return DER.sequence(Self.derInteger(rawRepresentation[0..<half]) + Self.derInteger(rawRepresentation[half...]))
    }

    private static func derInteger(_ magnitude: ArraySlice<UInt8>) -> [UInt8] {
        var bytes = Array(magnitude.drop { $0 == 0 })
        if bytes.isEmpty { bytes = [0] }
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return DER.tlv(DER.integerTag, bytes)
    }

    /// The contents of exactly `SEQUENCE { INTEGER, INTEGER }` with positive, minimally encoded integers.
    private static func integers(_ der: [UInt8]) -> (ArraySlice<UInt8>, ArraySlice<UInt8>)? {
        guard let sequence = DER.element(der, at: 0), sequence.tag == DER.sequenceTag, sequence.end == der.count,
            let r = DER.element(der, at: sequence.contentStart), r.tag == DER.integerTag,
            let s = DER.element(der, at: r.end), s.tag == DER.integerTag, s.end == sequence.end,
            isPositiveMinimal(der[r.content]), isPositiveMinimal(der[s.content])
        else { return nil }
        return (der[r.content], der[s.content])
    }

    /// Negative integers and non-minimal encodings are not valid signature values.
    private static func isPositiveMinimal(_ content: ArraySlice<UInt8>) -> Bool {
        guard let first = content.first, first & 0x80 == 0 else { return false }
        return content.count == 1 || first != 0 || content[content.startIndex + 1] & 0x80 != 0
    }

    /// A DER integer's content as an unsigned big-endian value of exactly `width` bytes.
    private static func fixedWidth(_ content: ArraySlice<UInt8>, _ width: Int) -> [UInt8]? {
        let magnitude = content.drop { $0 == 0 }
        guard magnitude.count <= width else { return nil }
        return [UInt8](repeating: 0, count: width - magnitude.count) + magnitude
    }
}
