import LedgerCrypto
import Testing

@Suite("ECDSA signature encodings")
struct ECDSASignatureTests {
    @Test func derFromOpenSSLConvertsToRawAndBack() throws {
        // A DER signature produced by the `openssl dgst -sign` command line (s has its high bit set).
        let der = try #require(
            Hex.decode(
                "3045022022f6dc5db1c1709321c8dd0fe9ec5efdede86bbc4c435c4b89ed7c8c7247bced022100b40e11cc6f062c64"
                    + "4615bf8e1543cf29853414a2630d1fb9c1ac05ad8ede1ca3"))
        let signature = try ECDSASignature(derRepresentation: der, curve: .p256)
        #expect(signature.rawRepresentation.count == 64)
        #expect(Hex.encode(signature.rawRepresentation.prefix(4)) == "22f6dc5d")
        #expect(Hex.encode(signature.rawRepresentation[32..<36]) == "b40e11cc")
        #expect(signature.derRepresentation == der)
    }

    @Test func shortIntegersArePaddedInRawAndMinimalInDER() throws {
        var raw = [UInt8](repeating: 0, count: 64)
        raw[31] = 0x01  // r = 1
        raw[32] = 0x80  // s has its top bit set
        let signature = try ECDSASignature(rawRepresentation: raw)
        let der = signature.derRepresentation
        #expect(Array(der.prefix(5)) == [0x30, 0x26, 0x02, 0x01, 0x01])
        #expect(Array(der[5..<8]) == [0x02, 0x21, 0x00])
        let back = try ECDSASignature(derRepresentation: der, curve: .p256)
        #expect(back.rawRepresentation == raw)
    }

    @Test(arguments: [
        "3006020101020101ff",  // trailing byte
        "30060201ff020101",  // negative r
        "300702020001020101",  // non-minimal r
        "300602010102",  // truncated
        "3103020101",  // not a SEQUENCE
    ])
    func malformedDERIsRejected(hex: String) throws {
        let der = try #require(Hex.decode(hex))
        #expect(throws: CryptoError(.invalidEncoding, "")) {
            try ECDSASignature(derRepresentation: der, curve: .p256)
        }
    }

    @Test func integersWiderThanTheCurveAreRejected() throws {
        let wide = ECDSASignature.testDER(rLength: 33)
        #expect(throws: CryptoError(.invalidEncoding, "")) {
            try ECDSASignature(derRepresentation: wide, curve: .p256)
        }
        #expect(throws: Never.self) { try ECDSASignature(derRepresentation: wide, curve: .p384) }
    }

    @Test(arguments: [0, 63, 65, 128])
    func rawOfTheWrongLengthIsRejected(count: Int) {
        #expect(throws: CryptoError(.invalidEncoding, "")) {
            try ECDSASignature(rawRepresentation: [UInt8](repeating: 1, count: count))
        }
    }
}

extension ECDSASignature {
    /// A DER signature whose r has `rLength` bytes of 0x11 and s = 1.
    static func testDER(rLength: Int) -> [UInt8] {
        [0x30, UInt8(rLength + 5), 0x02, UInt8(rLength)] + [UInt8](repeating: 0x11, count: rLength)
            + [0x02, 0x01, 0x01]
    }
}
