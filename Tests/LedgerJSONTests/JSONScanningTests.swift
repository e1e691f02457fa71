import LedgerJSON
import Testing

/// The parser's fast paths (strings scanned 16 bytes at a time, integers read without a string, object
/// lookups that compare lengths first) give the same answers and the same errors as byte-by-byte reading.
@Suite("JSON: fast scanning paths")
struct JSONScanningTests {
    /// A string of `count` ASCII letters, long enough to cross several 16-byte blocks.
    static func letters(_ count: Int) -> String {
        String((0..<count).map { Character(Unicode.Scalar(UInt8(97 + $0 % 26))) })
    }

    @Test func everyLengthAndEveryEscapePositionDecodes() throws {
        for count in 0..<140 {
            let plain = Self.letters(count)
            #expect(try JSONValue.parse("\"\(plain)\"").string == plain)
            for position in stride(from: 0, through: count, by: 1) {
                let prefix = String(plain.prefix(position))
                let suffix = String(plain.dropFirst(position))
                #expect(try JSONValue.parse("\"\(prefix)\\n\(suffix)\"").string == prefix + "\n" + suffix)
                #expect(try JSONValue.parse("\"\(prefix)\\\"\(suffix)\"").string == prefix + "\"" + suffix)
            }
        }
    }

    @Test func aControlCharacterIsReportedAtItsOffset() {
        for count in [1, 15, 16, 17, 40, 63, 64, 65, 100, 130] {
            for position in 0..<count {
                var bytes = Array("\"\(Self.letters(count))\"".utf8)
                bytes[1 + position] = 0x01
                do {
                    _ = try JSONValue.parse(bytes)
                    Issue.record("accepted a control character at \(position) of \(count)")
                } catch {
                    #expect(error.offset == 1 + position)
                    #expect(error.message == "control character in a string")
                }
            }
        }
    }

    @Test func nonASCIIStringsAreValidatedWhateverTheirLength() throws {
        for count in [0, 5, 16, 31, 64, 100] {
            let text = Self.letters(count) + "é😀" + Self.letters(count)
            #expect(try JSONValue.parse("\"\(text)\"").string == text)
            var invalid = Array("\"\(Self.letters(count))xx\(Self.letters(count))\"".utf8)
            invalid[1 + count] = 0xFF
            #expect(throws: JSONError.self) { try JSONValue.parse(invalid) }
        }
    }

    @Test func anUnterminatedLongStringIsRejected() {
        #expect(throws: JSONError.self) { try JSONValue.parse("\"" + Self.letters(100)) }
        #expect(throws: JSONError.self) { try JSONValue.parse("\"" + Self.letters(100) + "\\") }
    }

    @Test func integersAtTheEdgesOfInt64() throws {
        #expect(try JSONValue.parse("9223372036854775807") == .integer(Int64.max))
        #expect(try JSONValue.parse("-9223372036854775808") == .integer(Int64.min))
        #expect(try JSONValue.parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try JSONValue.parse("-9223372036854775809") == .double(-9_223_372_036_854_775_809))
        #expect(try JSONValue.parse("99999999999999999999999") == .double(1e23))
        #expect(try JSONValue.parse("-0") == .integer(0))
        #expect(try JSONValue.parse("0") == .integer(0))
        #expect(try JSONValue.parse("[12,-7,1759302518835]") == [12, -7, 1_759_302_518_835])
    }

    @Test func randomIntegersReadAsSwiftReadsThem() throws {
        var state: UInt64 = 0x1234_5678
        for _ in 0..<2_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let digits = Int(state >> 59) + 1
            var text = String(state % 2 == 0 ? "-" : "")
            text += String(state >> 1).prefix(digits)
            if text.dropFirst(text.hasPrefix("-") ? 1 : 0).hasPrefix("0"), text.count > 1 { continue }
            let expected: JSONValue = Int64(text).map(JSONValue.integer) ?? .double(Double(text)!)
            #expect(try JSONValue.parse(text) == expected, "\(text)")
        }
    }

    @Test func lookupsFindTheLastMemberOfExactlyThatName() throws {
        let value = try JSONValue.parse(#"{"ab":1,"ba":2,"é":3,"ab":4,"abc":5,"e\u0301":6,"":7}"#)
        #expect(value["ab"] == 4)
        #expect(value["ba"] == 2)
        #expect(value["abc"] == 5)
        #expect(value["a"] == nil)
        #expect(value["ac"] == nil)
        #expect(value[""] == 7)
        // Swift's String equality is canonical equivalence: é and e + U+0301 are one key (the last
        // wins), and KELVIN SIGN is the letter K.
        #expect(value["é"] == 6)
        #expect(value["e\u{301}"] == 6)
        let kelvin = try JSONValue.parse(#"{"K":1,"\u212A":2,"k":3}"#)
        #expect(kelvin["K"] == 2)
        #expect(kelvin["\u{212A}"] == 2)
        #expect(kelvin["k"] == 3)
    }
}
