import LedgerAppStore
import LedgerAppStoreTestKit
import LedgerCore
import LedgerCrypto
import LedgerJSON
import LedgerTesting
import Testing

/// Chain rules beyond the acceptance list, and the chain cache.
@Suite("Verification: certificate chain and cache")
struct VerificationChainTests {
    /// Why a transaction signed by a PKI shaped by `options` fails verification against that PKI's own root, or
    /// nil when it verifies.
    static func failure(of options: ApplePKI.Options) throws -> VerificationError? {
        let pki = try TestPKI(options)
        let signed = try pki.sign(TestPKI.Payloads.transaction())
        let verifier = try pki.verifier()
        do {
            _ = try verifier.verifyTransaction(signed)
            return nil
        } catch {
            return error
        }
    }

    @Test func x5cRootIsNeverTrustedOrEvenRead() throws {
        // Apple's own test fixture carries an x5c[2] that differs from the configured root.
        let pki = TestPKI.shared
        for third in ["", "bm90IGEgY2VydGlmaWNhdGU=", Base64.encode(try TestPKI().rootDER)] {
            let header: JSONObject = [
                "alg": "ES256",
                "x5c": [
                    .string(Base64.encode(pki.pki.leaf.derRepresentation)),
                    .string(Base64.encode(pki.pki.intermediate.derRepresentation)), .string(third),
                ],
            ]
            let signed = try JWSSigner(privateKey: pki.pki.leafKey, header: header).sign(
                TestPKI.Payloads.transaction())
            #expect(try pki.verifier().verifyTransaction(signed)["bundleId"]?.string == TestPKI.bundleId)
        }
    }

    @Test func anUntrustedRootInX5cDoesNotHelp() throws {
        let impostor = try TestPKI()
        let signed = try impostor.sign(TestPKI.Payloads.transaction())
        #expect(throws: VerificationError(.verificationFailure, "")) {
            try TestPKI.shared.verifier().verifyTransaction(signed)
        }
        // Trusting several roots: the one that issued the intermediate is found.
        let verifier = try impostor.verifier(roots: [TestPKI.shared.rootDER, impostor.rootDER])
        #expect(throws: Never.self) { try verifier.verifyTransaction(signed) }
    }

    @Test func anIntermediateThatIsNotACAIsRejected() throws {
        var options = ApplePKI.Options()
        options.intermediateIsCA = false
        let error = try #require(try Self.failure(of: options), "a chain through a non-CA intermediate was accepted")
        #expect(error.status == .verificationFailure)
        #expect(error.message.contains("not a CA"))
    }

    @Test func aTrustRootThatIsNotACAAnchorsNothing() throws {
        var options = ApplePKI.Options()
        options.rootIsCA = false
        let error = try #require(
            try Self.failure(of: options), "a chain anchored by a trust root that is not a CA was accepted")
        #expect(error.status == .verificationFailure)
        #expect(error.message.contains("trust root") && error.message.contains("not a CA"))
    }

    /// A version 1 root has no extensions to say it is a CA; swift-certificates' policy lets it issue, and so does
    /// the verifier.
    @Test func aVersion1TrustRootAnchorsTheChain() throws {
        var options = ApplePKI.Options()
        options.rootIsVersion1 = true
        let pki = try TestPKI(options)
        #expect(pki.pki.root.version == 1)
        #expect(throws: Never.self) {
            try pki.verifier().verifyTransaction(try pki.sign(TestPKI.Payloads.transaction()))
        }
    }

    @Test func aRootWhosePathLengthForbidsIntermediatesIsRejected() throws {
        var options = ApplePKI.Options()
        options.rootPathLength = 0
        let pki = try TestPKI(options)
        #expect(throws: VerificationError(.verificationFailure, "")) {
            try pki.verifier().verifyTransaction(try pki.sign(TestPKI.Payloads.transaction()))
        }
    }

    @Test func aLeafKeyThatIsNotP256IsAVerificationFailure() throws {
        var options = ApplePKI.Options()
        options.leafCurve = .p384
        let error = try #require(try Self.failure(of: options), "a P-384 leaf was accepted for ES256")
        #expect(error.status == .verificationFailure)
        #expect(error.message.contains("P-256"))
    }

    @Test(arguments: [DigestAlgorithm.sha256, .sha384])
    func certificateSignaturesWithSHA256AndSHA384OnP256KeysVerify(digest: DigestAlgorithm) throws {
        // Apple's test chains sign P-256 certificates with both hashes.
        var options = ApplePKI.Options.allP256
        options.rootDigest = digest
        options.intermediateDigest = digest
        options.leafDigest = digest
        let pki = try TestPKI(options)
        #expect(throws: Never.self) {
            try pki.verifier().verifyTransaction(try pki.sign(TestPKI.Payloads.transaction()))
        }
    }

    @Test(arguments: ["root", "intermediate"])
    func anExpiredRootOrIntermediateIsRejected(which: String) throws {
        let signedDate = TestPKI.Payloads.signedDate
        var options = ApplePKI.Options()
        let expired = (signedDate - 400 * 86_400_000)...(signedDate - 1000)
        if which == "root" {
            options.rootValidity = expired
        } else {
            options.intermediateValidity = expired
        }
        let pki = try TestPKI(options)
        #expect(throws: VerificationError(.verificationFailure, "")) {
            try pki.verifier().verifyTransaction(try pki.sign(TestPKI.Payloads.transaction()))
        }
    }

    @Test func withoutASignedDateTheChainIsValidatedNow() throws {
        let start = TestPKI.Payloads.signedDate
        var options = ApplePKI.Options()
        options.leafValidity = start...(start + 86_400_000)
        let pki = try TestPKI(options)
        let signed = try pki.sign(TestPKI.Payloads.transaction(signedDate: nil))
        #expect(throws: Never.self) {
            try pki.verifier(now: { start + 1000 }).verifyTransaction(signed)
        }
        #expect(throws: VerificationError(.verificationFailure, "")) {
            try pki.verifier(now: { start + 2 * 86_400_000 }).verifyTransaction(signed)
        }
    }

    @Test func certificatesThatAreNotBase64OrNotDERGetApplesStatuses() throws {
        let pki = TestPKI.shared
        let intermediate = Base64.encode(pki.pki.intermediate.derRepresentation)
        let root = Base64.encode(pki.rootDER)
        let cases: [(String, VerificationStatus)] = [
            ("!!not base64!!", .invalidCertificate),
            (Base64.encode(Array("not DER".utf8)), .invalidJWTFormat),
        ]
        for (leaf, status) in cases {
            let header: JSONObject = [
                "alg": "ES256", "x5c": [.string(leaf), .string(intermediate), .string(root)],
            ]
            let signed = try JWSSigner(privateKey: pki.pki.leafKey, header: header).sign(
                TestPKI.Payloads.transaction())
            #expect(throws: VerificationError(status, "")) {
                try pki.verifier().verifyTransaction(signed)
            }
        }
        let noChain = try JWSSigner(privateKey: pki.pki.leafKey, header: ["alg": "ES256"])
        #expect(throws: VerificationError(.invalidJWTFormat, "")) {
            try pki.verifier().verifyTransaction(try noChain.sign(TestPKI.Payloads.transaction()))
        }
    }

    @Test func aKnownChainIsValidatedOnceThenServedFromTheCache() throws {
        let pki = try TestPKI()
        let verifier = try pki.verifier()
        for number in 1...5 {
            _ = try verifier.verifyTransaction(
                try pki.sign(TestPKI.Payloads.transaction(transactionId: String(3_000_000 + number))))
        }
        let statistics = try #require(verifier.chainCacheStatistics)
        #expect(statistics.misses == 1)
        #expect(statistics.hits == 4)
        #expect(statistics.entries == 1)
    }

    @Test func aCachedChainStillRejectsDatesOutsideItsValidityAndForgedSignatures() throws {
        let start = TestPKI.Payloads.signedDate
        var options = ApplePKI.Options()
        options.leafValidity = start...(start + 86_400_000)
        let pki = try TestPKI(options)
        let verifier = try pki.verifier()
        _ = try verifier.verifyTransaction(try pki.sign(TestPKI.Payloads.transaction()))
        let late = try pki.sign(TestPKI.Payloads.transaction(signedDate: start + 2 * 86_400_000))
        #expect(throws: VerificationError(.verificationFailure, "")) {
            try verifier.verifyTransaction(late)
        }
        let forged = JWSParts.flippingSignatureBit(try pki.sign(TestPKI.Payloads.transaction()))
        #expect(throws: VerificationError(.invalidJWTFormat, "")) {
            try verifier.verifyTransaction(forged)
        }
        #expect(verifier.chainCacheStatistics?.misses == 1)
    }

    @Test func aRejectedChainIsNotCached() throws {
        let impostor = try TestPKI()
        let verifier = try TestPKI.shared.verifier()
        let signed = try impostor.sign(TestPKI.Payloads.transaction())
        for _ in 0..<2 {
            #expect(throws: VerificationError(.verificationFailure, "")) {
                try verifier.verifyTransaction(signed)
            }
        }
        #expect(verifier.chainCacheStatistics?.entries == 0)
        #expect(verifier.chainCacheStatistics?.misses == 2)
    }

    @Test func theCacheIsBounded() throws {
        let root = TestPKI.shared
        let chains = try ChainVerifier(rootCertificates: [root.rootDER], cacheCapacity: 2)
        // Three leaves under the same intermediate: three distinct cache keys.
        for index in 0..<3 {
            let key = try ECPrivateKey(generating: .p256)
            var builder = CertificateBuilder(
                subject: DistinguishedName(commonName: "Leaf \(index)"), publicKey: key.publicKey,
                notBefore: root.pki.leaf.notBefore, notAfter: root.pki.leaf.notAfter)
            builder.markerExtensionOIDs = [ChainVerifier.receiptSigningOID]
            let leaf = try builder.signed(
                by: root.pki.intermediate, key: root.pki.intermediateKey, digest: .sha384)
            let validated = try chains.validatedLeafKey(
                leaf: leaf.derRepresentation, intermediate: root.pki.intermediate.derRepresentation,
                at: TestPKI.Payloads.signedDate)
            #expect(validated.derRepresentation == key.publicKey.derRepresentation)
        }
        #expect(chains.cacheStatistics.entries == 2)
        #expect(chains.cacheStatistics.evictions == 1)
    }

    @Test func concurrentVerificationsShareOneCache() async throws {
        let pki = try TestPKI()
        let verifier = try pki.verifier()
        let signed = try (0..<16).map {
            try pki.sign(TestPKI.Payloads.transaction(transactionId: String(5_000 + $0)))
        }
        let accepted = await withTaskGroup(of: Bool.self) { group in
            for jws in signed { group.addTask { (try? verifier.verifyTransaction(jws)) != nil } }
            var count = 0
            for await ok in group where ok { count += 1 }
            return count
        }
        #expect(accepted == 16)
        let statistics = try #require(verifier.chainCacheStatistics)
        #expect(statistics.hits + statistics.misses == 16)
        #expect(statistics.entries == 1)
    }
}
