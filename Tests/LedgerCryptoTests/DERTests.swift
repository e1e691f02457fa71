import LedgerCrypto
import Testing

@Suite("DER elements")
struct DERTests {
    @Test(arguments: [0, 1, 0x7F, 0x80, 0xFF, 0x100, 0xFFFF, 0x10000])
    func anElementReadsBackWhatWasWritten(length: Int) throws {
        let content = [UInt8](repeating: 0xAB, count: length)
        let encoded = DER.tlv(0x04, content) + [0x05, 0x00]
        let element = try #require(DER.element(encoded, at: 0))
        #expect(element.tag == 0x04)
        #expect(Array(encoded[element.content]) == content)
        // The header is minimal: 2 bytes under 0x80, then 1 + 1 + the length's significant bytes.
        let header = length < 0x80 ? 2 : length <= 0xFF ? 3 : length <= 0xFFFF ? 4 : 5
        #expect(element.contentStart == header)
        let next = try #require(DER.element(encoded, at: element.end))
        #expect(next.tag == 0x05 && next.start == element.end && next.content == (element.end + 2)..<encoded.count)
    }

    @Test(arguments: [
        "0481050000000000",  // long form for a length the short form can say
        "048200050000000000",  // a leading zero length byte
        "0480",  // indefinite length
        "04850000000001",  // five length bytes
        "040500",  // content past the end
        "04",  // no length
    ])
    func nonDERLengthsAreRefused(hex: String) throws {
        let bytes = try #require(Hex.decode(hex))
        #expect(DER.element(bytes, at: 0) == nil)
    }

    @Test func anOffsetOutsideTheBytesIsRefused() {
        #expect(DER.element([0x05, 0x00], at: 2) == nil)
        #expect(DER.element([0x05, 0x00], at: -1) == nil)
    }
}
