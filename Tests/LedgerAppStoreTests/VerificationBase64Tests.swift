import LedgerAppStore
import Testing

@Suite("Verification: base64 and base64url")
struct VerificationBase64Tests {
    @Test(arguments: [
        ("", "", ""), ("f", "Zg==", "Zg"), ("fo", "Zm8=", "Zm8"), ("foo", "Zm9v", "Zm9v"),
        ("foob", "Zm9vYg==", "Zm9vYg"), ("fooba", "Zm9vYmE=", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy", "Zm9vYmFy"),
    ])
    func rfc4648Vectors(plain: String, standard: String, url: String) {
        let bytes = Array(plain.utf8)
        #expect(Base64.encode(bytes) == standard)
        #expect(Base64.encodeURL(bytes) == url)
        #expect(Base64.decode(standard) == bytes)
        #expect(Base64.decodeURL(url) == bytes)
    }

    @Test func urlAndStandardAlphabetsDiffer() {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF]
        #expect(Base64.encode(bytes) == "+/+/")
        #expect(Base64.encodeURL(bytes) == "-_-_")
        #expect(Base64.decodeURL("+/+/") == nil)
        #expect(Base64.decode("-_-_") == nil)
    }

    @Test(arguments: ["Zg", "Zg=", "Z===", "Zm9v\n", "Zh==", "Zm9=", "Zg==Zg==", "=Zg="])
    func strictStandardDecodingRejects(text: String) {
        #expect(Base64.decode(text) == nil)
    }

    @Test(arguments: ["Zg==", "Z", "Zh", "Zm9v YmFy", "Zm9vYmE="])
    func strictURLDecodingRejects(text: String) {
        #expect(Base64.decodeURL(text) == nil)
    }

    @Test func roundTripsEveryByteValue() {
        let bytes = (0...255).map(UInt8.init)
        for count in [0, 1, 2, 3, 100, 256] {
            let slice = Array(bytes.prefix(count))
            #expect(Base64.decode(Base64.encode(slice)) == slice)
            #expect(Base64.decodeURL(Base64.encodeURL(slice)) == slice)
        }
    }
}
