import LedgerAppStore
import LedgerAppStoreTestKit
import LedgerCrypto
import LedgerTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Critical extensions: on the leaf, the intermediate and the trust root, only basicConstraints,
/// keyUsage and nameConstraints may be critical (RFC 5280 §4.2: a certificate with a critical
/// extension the verifier does not process is rejected), as in Apple's library.
@Suite("Verification: critical extensions")
struct VerificationCriticalExtensionsTests {
    /// Where in the chain an extension goes.
    enum Position: String, CaseIterable, Sendable {
        case leaf, intermediate, root
    }

    /// Extensions libcrypto understands, or does not know at all, that the verifier does not process.
    static let unprocessed: [(oid: String, name: String, value: String)] = [
        ("2.5.29.37", "extendedKeyUsage", "codeSigning"),
        ("2.5.29.17", "subjectAltName", "DNS:example.com"),
        ("2.5.29.32", "certificatePolicies", "2.5.29.32.0"),
        ("2.5.29.54", "inhibitAnyPolicy", "0"),
        ("1.3.6.1.4.1.55555.1", "1.3.6.1.4.1.55555.1", "DER:05:00"),
    ]

    /// A PKI with `ext` on the certificate at `position`.
    static func pki(with ext: CertificateBuilder.Extension, on position: Position) throws -> TestPKI {
        var options = ApplePKI.Options()
        switch position {
        case .leaf: options.leafExtensions = [ext]
        case .intermediate: options.intermediateExtensions = [ext]
        case .root: options.rootExtensions = [ext]
        }
        return try TestPKI(options)
    }

    static func certificate(at position: Position, of pki: TestPKI) -> X509Certificate {
        switch position {
        case .leaf: pki.pki.leaf
        case .intermediate: pki.pki.intermediate
        case .root: pki.pki.root
        }
    }

    @Test(arguments: Position.allCases, unprocessed.indices)
    func aCriticalExtensionTheVerifierDoesNotProcessFailsTheChain(position: Position, index: Int) throws {
        let (oid, name, value) = Self.unprocessed[index]
        let pki = try Self.pki(with: .init(name, value, isCritical: true), on: position)
        #expect(Self.certificate(at: position, of: pki).criticalExtensionOIDs.contains(oid))
        let error = try #require(
            try pki.transactionVerificationError(), "a critical \(name) on the \(position) was accepted")
        #expect(error.status == .verificationFailure)
        #expect(error.message.contains("critical extensions the verifier does not process (\(oid))"))
        #expect(error.message.contains(position == .root ? "trust root" : "\(position) certificate"))
    }

    @Test(arguments: Position.allCases, unprocessed.indices)
    func theSameExtensionNotCriticalIsAccepted(position: Position, index: Int) throws {
        let (oid, name, value) = Self.unprocessed[index]
        let pki = try Self.pki(with: .init(name, value, isCritical: false), on: position)
        let certificate = Self.certificate(at: position, of: pki)
        #expect(certificate.hasExtension(oid: oid) && !certificate.criticalExtensionOIDs.contains(oid))
        #expect(try pki.transactionVerificationError() == nil)
    }

    @Test(arguments: Position.allCases)
    func criticalBasicConstraintsKeyUsageAndNameConstraintsAreAccepted(position: Position) throws {
        // The test PKI marks basicConstraints and keyUsage critical everywhere; add a nameConstraints
        // every certificate below satisfies (an excluded subtree no one is in).
        let ext = CertificateBuilder.Extension.nameConstraints(
            excluded: [DistinguishedName(commonName: "Nobody")])
        let pki = try Self.pki(with: ext, on: position)
        #expect(
            Set(Self.certificate(at: position, of: pki).criticalExtensionOIDs)
                == ChainVerifier.handledCriticalExtensionOIDs)
        #expect(try pki.transactionVerificationError() == nil)
    }

    @Test(arguments: [Position.leaf, .intermediate])
    func aCriticalAppleMarkerIsRejected(position: Position) throws {
        var options = ApplePKI.Options()
        let marker = CertificateBuilder.Extension(
            position == .leaf ? ChainVerifier.receiptSigningOID : ChainVerifier.wwdrIntermediateOID, "DER:05:00",
            isCritical: true)
        if position == .leaf {
            options.leafExtensionOIDs = []
            options.leafExtensions = [marker]
        } else {
            options.intermediateExtensionOIDs = []
            options.intermediateExtensions = [marker]
        }
        let error = try #require(try TestPKI(options).transactionVerificationError())
        #expect(error.status == .verificationFailure)
        #expect(error.message.contains("critical extensions the verifier does not process (\(marker.name))"))
    }

    /// An issuer (the intermediate, the trust root) with keyUsage may sign certificates only with keyCertSign
    /// (RFC 5280 §4.2.1.3, as OpenSSL checks for Apple's Python library); one without keyUsage may.
    @Test(arguments: [Position.intermediate, .root], [true, false])
    func anIssuerWithKeyUsageMustHaveKeyCertSign(position: Position, hasKeyUsage: Bool) throws {
        var options = ApplePKI.Options()
        let usage: CertificateBuilder.KeyUsage? = hasKeyUsage ? [.digitalSignature, .cRLSign] : nil
        if position == .root { options.rootKeyUsage = usage } else { options.intermediateKeyUsage = usage }
        let pki = try TestPKI(options)
        #expect(Self.certificate(at: position, of: pki).hasExtension(oid: "2.5.29.15") == hasKeyUsage)
        let error = try pki.transactionVerificationError()
        if hasKeyUsage {
            #expect(error?.status == .verificationFailure)
            #expect(error?.message.contains("may not sign certificates (its keyUsage lacks keyCertSign)") == true)
        } else {
            #expect(error == nil)
        }
    }

    @Test func aRejectedRootDoesNotStopAnotherTrustedRootFromAnchoringTheChain() throws {
        // The intermediate's issuer found twice among the trust roots: one with a critical
        // extendedKeyUsage, then the same key and name without it.
        let bad = try Self.pki(with: .init("extendedKeyUsage", "codeSigning", isCritical: true), on: .root)
        var builder = CertificateBuilder(
            subject: ApplePKI.Options().rootName, publicKey: bad.pki.rootKey.publicKey,
            notBefore: bad.pki.root.notBefore, notAfter: bad.pki.root.notAfter)
        builder.isCA = true
        builder.keyUsage = [.keyCertSign, .cRLSign]
        let good = try builder.selfSigned(with: bad.pki.rootKey, digest: .sha384)
        let signed = try bad.sign(TestPKI.Payloads.transaction())
        let verifier = try bad.verifier(roots: [bad.rootDER, good.derRepresentation])
        #expect(throws: Never.self) { try verifier.verifyTransaction(signed) }
    }

    /// The real Apple root is not part of the repository; the test runs only where it was downloaded.
    @Test(.enabled(if: AppleRootFile.bytes != nil, "Apple Root CA - G3 is not downloaded"))
    func appleRootCAG3PassesTheRootChecksAndTheTestPKIMirrorsIt() throws {
        let root = try X509Certificate(fileContents: try #require(AppleRootFile.bytes))
        #expect(root.criticalExtensionOIDs == ["2.5.29.19", "2.5.29.15"])
        #expect(!root.hasInvalidExtensions && !root.hasNameConstraints)
        // The test PKI's root has the same critical extensions, and its chains verify.
        let pki = TestPKI.shared
        #expect(pki.pki.root.criticalExtensionOIDs == root.criticalExtensionOIDs)
        #expect(!pki.pki.intermediate.criticalExtensionOIDs.contains(ChainVerifier.wwdrIntermediateOID))
        #expect(!pki.pki.leaf.criticalExtensionOIDs.contains(ChainVerifier.receiptSigningOID))
        #expect(try pki.transactionVerificationError() == nil)
        // A verifier trusting the Apple root still rejects a chain that does not lead to it.
        let verifier = try pki.verifier(roots: [root.derRepresentation])
        #expect(throws: VerificationError(.verificationFailure, "")) {
            try verifier.verifyTransaction(try pki.sign(TestPKI.Payloads.transaction()))
        }
    }
}
