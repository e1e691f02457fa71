import LedgerCrypto
import Testing

@Suite("EC keys, signing and verification")
struct ECKeyTests {
    static let message = Array("ledger interop".utf8)

    @Test(arguments: ECCurve.allCases)
    func generatedKeySignsAndVerifies(curve: ECCurve) throws {
        let key = try ECPrivateKey(generating: curve)
        #expect(key.curve == curve)
        #expect(key.publicKey.curve == curve)
        let signature = try key.signature(for: Self.message, digest: curve.defaultDigest)
        #expect(signature.rawRepresentation.count == 2 * curve.coordinateByteCount)
        #expect(
            key.publicKey.isValidSignature(signature, for: Self.message, digest: curve.defaultDigest))
    }

    @Test func tamperedMessageSignatureOrKeyFails() throws {
        let key = try ECPrivateKey(generating: .p256)
        let other = try ECPrivateKey(generating: .p256)
        let signature = try key.signature(for: Self.message, digest: .sha256)
        var tampered = Self.message
        tampered[0] ^= 1
        #expect(!key.publicKey.isValidSignature(signature, for: tampered, digest: .sha256))
        var raw = signature.rawRepresentation
        raw[40] ^= 0x20
        #expect(
            !key.publicKey.isValidSignature(
                try ECDSASignature(rawRepresentation: raw), for: Self.message, digest: .sha256))
        #expect(!other.publicKey.isValidSignature(signature, for: Self.message, digest: .sha256))
        #expect(!key.publicKey.isValidSignature(signature, for: Self.message, digest: .sha384))
    }

    @Test func p256WithSHA384TruncatesTheDigest() throws {
        // Apple's test chains sign P-256 certificates with ecdsa-with-SHA384.
        let key = try ECPrivateKey(generating: .p256)
        let signature = try key.signature(for: Self.message, digest: .sha384)
        #expect(signature.rawRepresentation.count == 64)
        #expect(key.publicKey.isValidSignature(signature, for: Self.message, digest: .sha384))
    }

    @Test func signatureOfOneCurveNeverVerifiesOnAnother() throws {
        let p384 = try ECPrivateKey(generating: .p384)
        let p256 = try ECPrivateKey(generating: .p256)
        let signature = try p384.signature(for: Self.message, digest: .sha384)
        #expect(!p256.publicKey.isValidSignature(signature, for: Self.message, digest: .sha384))
    }

    @Test func verifiesSignaturesMadeByTheOpenSSLCommandLine() throws {
        let p256 = try ECPublicKey(
            pemRepresentation: """
                -----BEGIN PUBLIC KEY-----
                MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEvioMmROM8ErR+uzdw1u4Eralxnuu
                DZe+hr8YYInj+pdVJr27uwaYc5JjIppaOY02ac+UUiyHPpMsW/eTPXkNWQ==
                -----END PUBLIC KEY-----
                """)
        let der256 = try #require(
            Hex.decode(
                "3045022022f6dc5db1c1709321c8dd0fe9ec5efdede86bbc4c435c4b89ed7c8c7247bced022100b40e11cc6f062c64"
                    + "4615bf8e1543cf29853414a2630d1fb9c1ac05ad8ede1ca3"))
        let signature256 = try ECDSASignature(derRepresentation: der256, curve: .p256)
        #expect(p256.isValidSignature(signature256, for: Self.message, digest: .sha256))

        let p384 = try ECPublicKey(
            pemRepresentation: """
                -----BEGIN PUBLIC KEY-----
                MHYwEAYHKoZIzj0CAQYFK4EEACIDYgAElEDkdWYJ3jMLxu1Z/IlYmwvzN2tza/l0
                YKaYlCbYlcE8C6HWYToNVcvZOj1IUcc3lqFP86yvjNpeiNVzEYbHvWHW8VBJdgjY
                wKALm+jqayttJe8mlK333r9wdNFU4nDy
                -----END PUBLIC KEY-----
                """)
        #expect(p384.curve == .p384)
        let der384 = try #require(
            Hex.decode(
                "306602310091252ba92c7c2786a74dc92cb32d3c2753e9a2da4530e0cd5f3f83352a833d9b917797655734c6e79d8d"
                    + "f47ba3c2ba5e023100e7ed7a05217dc407db3f4382a7232f54cc944784eea8b382c758e5b8adc15f1006ca22c51e26"
                    + "c528ddad29a7986354c2"))
        #expect(
            p384.isValidSignature(
                derSignature: der384, forDigest: DigestAlgorithm.sha384.hash(Self.message)))
    }

    @Test func importsAnOpenSSLPKCS8PrivateKey() throws {
        let key = try ECPrivateKey(
            pemRepresentation: """
                -----BEGIN PRIVATE KEY-----
                MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgH0aO4//x10kEjzhq
                29shhJMDwkhVfsV76u5MdrS2ohOhRANCAAS+KgyZE4zwStH67N3DW7gStqXGe64N
                l76GvxhgieP6l1Umvbu7BphzkmMimlo5jTZpz5RSLIc+kyxb95M9eQ1Z
                -----END PRIVATE KEY-----
                """)
        #expect(
            key.publicKey.pemRepresentation.contains(
                "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEvioMmROM8ErR+uzdw1u4Eralxnuu"))
    }

    @Test(arguments: ECCurve.allCases)
    func keysRoundTripThroughDERAndPEM(curve: ECCurve) throws {
        let key = try ECPrivateKey(generating: curve)
        let fromDER = try ECPrivateKey(derRepresentation: key.derRepresentation)
        let fromPEM = try ECPrivateKey(pemRepresentation: key.pemRepresentation)
        #expect(key.pemRepresentation.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(fromDER.publicKey.derRepresentation == key.publicKey.derRepresentation)
        #expect(fromPEM.publicKey.derRepresentation == key.publicKey.derRepresentation)

        let publicDER = try ECPublicKey(derRepresentation: key.publicKey.derRepresentation)
        let publicPEM = try ECPublicKey(pemRepresentation: key.publicKey.pemRepresentation)
        let signature = try fromDER.signature(for: Self.message, digest: .sha256)
        #expect(publicDER.isValidSignature(signature, for: Self.message, digest: .sha256))
        #expect(publicPEM.isValidSignature(signature, for: Self.message, digest: .sha256))
    }

    @Test func garbageIsRejectedWithAMessage() throws {
        #expect(throws: CryptoError(.invalidEncoding, "")) {
            try ECPublicKey(derRepresentation: [0x30, 0x03, 1, 2, 3])
        }
        #expect(throws: CryptoError(.invalidEncoding, "")) { try ECPublicKey(derRepresentation: []) }
        #expect(throws: CryptoError(.invalidEncoding, "")) {
            try ECPrivateKey(pemRepresentation: "not a key")
        }
        let key = try ECPrivateKey(generating: .p256)
        let trailing = key.publicKey.derRepresentation + [0]
        do {
            _ = try ECPublicKey(derRepresentation: trailing)
            Issue.record("a key with trailing bytes was accepted")
        } catch {
            #expect(error.code == .invalidEncoding)
            #expect(error.message.contains("SubjectPublicKeyInfo"))
        }
    }
}
