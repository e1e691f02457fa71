import LedgerCrypto
import Testing

@Suite("Digests")
struct DigestTests {
    @Test(arguments: [
        (DigestAlgorithm.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            DigestAlgorithm.sha384,
            "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"
        ),
    ])
    func knownAnswerForABC(algorithm: DigestAlgorithm, expected: String) {
        let digest = algorithm.hash(Array("abc".utf8))
        #expect(digest.count == algorithm.byteCount)
        #expect(Hex.encode(digest) == expected)
    }

    @Test func incrementalSHA256MatchesOneShot() {
        let message = Array("the ledger appends every verified notification".utf8)
        var hasher = SHA256()
        hasher.update(message[..<10])
        hasher.update(message[10...])
        #expect(hasher.finalize() == SHA256.hash(message))
    }

    @Test func hashedBytesFinishedFromAPrefixDigestMatchHashingThemWhole() {
        let message = Array(repeating: Array("header.payload.signature ".utf8), count: 9).flatMap { $0 }
        for prefix in [0, 1, 14, 63, 64, 65, 128, message.count - 1, message.count] {
            var hasher = SHA256()
            hasher.update(message[..<prefix])
            let hashed = HashedBytes(message, continuing: hasher, afterPrefix: prefix)
            #expect(hashed.bytes == message)
            #expect(hashed.sha256 == SHA256.hash(message), "prefix \(prefix)")
            #expect(hashed == HashedBytes(message))
        }
    }

    @Test func hexRoundTripsAndRejectsGarbage() {
        let bytes: [UInt8] = [0x00, 0x7F, 0x80, 0xFF, 0x3A]
        #expect(Hex.decode(Hex.encode(bytes)) == bytes)
        #expect(Hex.decode("ABcd") == [0xAB, 0xCD])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
    }
}
