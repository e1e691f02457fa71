import Testing

@testable import LedgerCore

/// The fold's texts compare as their bytes: for ASCII (Apple's identifiers), exactly as `String`s compare.
@Suite("Fold texts")
struct FoldTextsTests {
    /// Random ASCII strings of 0–40 bytes from a small alphabet, so that equal strings, shared prefixes and
    /// prefixes of one another are common.
    static func strings(_ count: Int) -> [String] {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0129aAzZ-_.".utf8)
        var result = ["", "a", "ab", "abc", "2000000123456789", "20000001234567890", "com.visla.gps.monthly_1"]
        for _ in 0..<count {
            let length = Int.random(in: 0...40, using: &generator)
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            result.append(String(decoding: bytes, as: UTF8.self))
            if let base = result.randomElement(using: &generator), !base.isEmpty {
                result.append(String(base.dropLast(Int.random(in: 0...base.count, using: &generator))))
            }
        }
        return result
    }

    @Test("equality, order and identifier order agree with String's on ASCII; strings round-trip")
    func agreesWithStrings() {
        let strings = Self.strings(300)
        var texts = FoldTexts()
        let added = strings.map { texts.add($0) }
        // Texts inside a payload (not at the start of the bytes) behave the same.
        let padding = texts.append(UnsafeRawBufferPointer(start: nil, count: 0))
        #expect(padding == texts.byteCount)
        for (string, text) in zip(strings, added) {
            #expect(texts.string(text) == string)
            #expect(texts.equals(text, string))
            let again = texts.add(string)
            #expect(texts.hash(text) == texts.hash(again) && texts.equal(text, again))
        }
        for _ in 0..<20_000 {
            let left = Int.random(in: 0..<strings.count)
            let right = Int.random(in: 0..<strings.count)
            let (lhs, rhs) = (strings[left], strings[right])
            #expect(texts.equal(added[left], added[right]) == (lhs == rhs), "\(lhs) == \(rhs)")
            #expect(texts.precedes(added[left], added[right]) == (lhs < rhs), "\(lhs) < \(rhs)")
            #expect(
                texts.identifierPrecedes(added[left], added[right]) == identifierPrecedes(lhs, rhs), "\(lhs), \(rhs)")
        }
        let empty = texts.add("")
        #expect(texts.equal(FoldText.none, empty))
        #expect(texts.equal(nil, nil) && !texts.equal(added[1], nil))
    }

    @Test("non-ASCII texts are their bytes: equal and ordered by them")
    func nonASCII() {
        var texts = FoldTexts()
        let composed = texts.add("\u{E9}")  // é
        let decomposed = texts.add("e\u{301}")  // e + combining acute: the same String, other bytes
        let kelvin = texts.add("\u{212A}")  // canonically "K"
        let letter = texts.add("K")
        #expect(!texts.equal(composed, decomposed))
        #expect(!texts.equal(kelvin, letter))
        #expect(texts.precedes(decomposed, composed))  // 0x65 before 0xC3
        #expect(texts.precedes(letter, kelvin))
        #expect(texts.string(decomposed) == "e\u{301}")
    }
}
