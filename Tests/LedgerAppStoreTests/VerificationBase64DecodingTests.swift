import LedgerAppStore
import LedgerTesting
import Testing

/// The table-driven decoder against a plain bit-by-bit reference, on random and malformed input.
@Suite("Verification: base64 decoding against a reference")
struct VerificationBase64DecodingTests {
    /// The reference: six bits at a time into an accumulator, strict as RFC 4648 wants.
    static func reference(_ text: [UInt8], alphabet: String) -> [UInt8]? {
        let alphabet = Array(alphabet.utf8)
        guard text.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in text {
            guard let sextet = alphabet.firstIndex(of: byte) else { return nil }
            accumulator = accumulator << 6 | UInt32(sextet)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        return accumulator == 0 ? out : nil
    }

    static let url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    static let standard = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

    @Test func randomBytesRoundTripAtEveryLength() {
        var random = SeededRandom(seed: 11)
        for count in 0..<200 {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(Base64.decodeURL(Base64.encodeURL(bytes)) == bytes)
            #expect(Base64.decode(Base64.encode(bytes)) == bytes)
            #expect(Base64.decodeURL(ArraySlice(Array(Base64.encodeURL(bytes).utf8))) == bytes)
        }
    }

    @Test func randomTextDecodesAsTheReferenceDoes() {
        var random = SeededRandom(seed: 12)
        // Mostly alphabet characters, sometimes a foreign one, so both outcomes are exercised.
        let characters = Array((Self.url + "+/=. \n\u{0}\u{7F}").utf8) + [0x80, 0xFF]
        for _ in 0..<3_000 {
            let count = Int.random(in: 0..<48, using: &random)
            let foreign = Bool.random(using: &random)
            let text = (0..<count).map { _ in
                foreign && Int.random(in: 0..<16, using: &random) == 0
                    ? characters.randomElement(using: &random)!
                    : Array(Self.url.utf8).randomElement(using: &random)!
            }
            #expect(Base64.decodeURL(text) == Self.reference(text, alphabet: Self.url), "\(text)")
        }
    }

    @Test func aForeignCharacterAnywhereIsRejected() {
        let text = Array(Base64.encodeURL((0..<60).map(UInt8.init)).utf8)
        for position in text.indices {
            for foreign in ["=", "+", "/", ".", " ", "\u{0}", "\u{80}"].map({ Array($0.utf8)[0] }) {
                var broken = text
                broken[position] = foreign
                #expect(Base64.decodeURL(broken) == nil)
            }
        }
    }

    @Test func nonCanonicalTrailingBitsAreRejected() {
        // "Zg" is canonical for 0x66; "Zh"…"Zv" carry non-zero bits past the byte.
        for last in Array("hijklmnopqrstuv".utf8) {
            #expect(Base64.decodeURL([UInt8(ascii: "Z"), last]) == nil)
            #expect(Base64.decode([UInt8(ascii: "Z"), last, 0x3D, 0x3D]) == nil)
        }
        #expect(Base64.decodeURL(Array("Zm8".utf8)) == Array("fo".utf8))
        #expect(Base64.decodeURL(Array("Zm9".utf8)) == nil)
        #expect(Base64.decodeURL(Array("Zm-".utf8)) == nil)
    }

    @Test func standardDecodingMatchesTheReferenceOnRandomPaddedText() {
        var random = SeededRandom(seed: 13)
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0..<40, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            var text = Array(Base64.encode(bytes).utf8)
            if !text.isEmpty, Int.random(in: 0..<4, using: &random) == 0 {
                text[Int.random(in: 0..<text.count, using: &random)] = Array(Self.standard.utf8).randomElement(
                    using: &random)!
            }
            let unpadded = Array(text.prefix { $0 != UInt8(ascii: "=") })
            let padding = text.count - unpadded.count
            let expected: [UInt8]? =
                text.count % 4 == 0 && padding <= 2 && text.suffix(padding).allSatisfy { $0 == 0x3D }
                ? Self.reference(unpadded, alphabet: Self.standard) : nil
            #expect(Base64.decode(text) == expected, "\(String(decoding: text, as: UTF8.self))")
        }
    }
}
