import LedgerCrypto
import LedgerTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("X.509 certificates")
struct X509CertificateTests {
    static let day: Int64 = 86_400_000
    static let start: Int64 = 1_767_225_600_000  // 2026-01-01T00:00:00Z

    struct Chain {
        let rootKey: ECPrivateKey
        let root: X509Certificate
        let intermediateKey: ECPrivateKey
        let intermediate: X509Certificate
        let leafKey: ECPrivateKey
        let leaf: X509Certificate
    }

    static func chain(rootCurve: ECCurve = .p256, digest: DigestAlgorithm = .sha256) throws -> Chain {
        let rootKey = try ECPrivateKey(generating: rootCurve)
        var rootBuilder = CertificateBuilder(
            subject: DistinguishedName(
                commonName: "Test Root", organization: "Ledger Tests", country: "US"),
            publicKey: rootKey.publicKey, notBefore: start, notAfter: start + 3650 * day)
        rootBuilder.isCA = true
        rootBuilder.keyUsage = [.keyCertSign, .cRLSign]
        let root = try rootBuilder.selfSigned(with: rootKey, digest: digest)

        let intermediateKey = try ECPrivateKey(generating: rootCurve)
        var intermediateBuilder = CertificateBuilder(
            subject: DistinguishedName(commonName: "Test Intermediate"),
            publicKey: intermediateKey.publicKey,
            notBefore: start, notAfter: start + 1825 * day)
        intermediateBuilder.isCA = true
        intermediateBuilder.pathLengthConstraint = 0
        intermediateBuilder.markerExtensionOIDs = ["1.2.840.113635.100.6.2.1"]
        let intermediate = try intermediateBuilder.signed(by: root, key: rootKey, digest: digest)

        let leafKey = try ECPrivateKey(generating: .p256)
        var leafBuilder = CertificateBuilder(
            subject: DistinguishedName(commonName: "Test Leaf"), publicKey: leafKey.publicKey,
            notBefore: start + 1500, notAfter: start + 365 * day)
        leafBuilder.keyUsage = [.digitalSignature]
        leafBuilder.markerExtensionOIDs = ["1.2.840.113635.100.6.11.1"]
        let leaf = try leafBuilder.signed(by: intermediate, key: intermediateKey, digest: digest)
        return Chain(
            rootKey: rootKey, root: root, intermediateKey: intermediateKey, intermediate: intermediate,
            leafKey: leafKey, leaf: leaf)
    }

    @Test func builtChainHasTheRequestedFields() throws {
        let chain = try Self.chain()
        #expect(chain.root.subjectDER == chain.root.issuerDER)
        #expect(chain.intermediate.issuerDER == chain.root.subjectDER)
        #expect(chain.leaf.issuerDER == chain.intermediate.subjectDER)
        #expect(chain.leaf.subjectDER != chain.intermediate.subjectDER)
        #expect(chain.root.subjectSummary == "/CN=Test Root/O=Ledger Tests/C=US")

        #expect(chain.root.isCA && chain.intermediate.isCA && !chain.leaf.isCA)
        #expect(chain.intermediate.pathLengthConstraint == 0)
        #expect(chain.root.pathLengthConstraint == nil)
        #expect(chain.leaf.notBefore == Self.start + 1000)  // whole seconds
        #expect(chain.leaf.notAfter == Self.start + 365 * Self.day)
        #expect(
            chain.leaf.isValid(at: Self.start + 1000)
                && chain.leaf.isValid(at: Self.start + 365 * Self.day))
        #expect(
            !chain.leaf.isValid(at: Self.start + 999)
                && !chain.leaf.isValid(at: Self.start + 365 * Self.day + 1))

        #expect(chain.leaf.hasExtension(oid: "1.2.840.113635.100.6.11.1"))
        #expect(!chain.leaf.hasExtension(oid: "1.2.840.113635.100.6.11"))
        #expect(!chain.leaf.hasExtension(oid: "1.2.840.113635.100.6.2.1"))
        #expect(chain.intermediate.hasExtension(oid: "1.2.840.113635.100.6.2.1"))
        #expect(chain.leaf.extensionOIDs.contains("2.5.29.35"))  // authorityKeyIdentifier
        #expect(!chain.leaf.hasUnhandledCriticalExtension && !chain.leaf.hasInvalidExtensions)
        #expect(chain.leaf.signatureDigest == .sha256)
    }

    @Test func markerExtensionValueIsASN1Null() throws {
        let chain = try Self.chain()
        // OID 1.2.840.113635.100.6.11.1 followed by OCTET STRING { NULL }.
        let encoded: [UInt8] = [
            0x06, 0x0A, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x63, 0x64, 0x06, 0x0B, 0x01, 0x04, 0x02, 0x05,
            0x00,
        ]
        let der = chain.leaf.derRepresentation
        let found = (0...(der.count - encoded.count)).contains {
            der[$0..<($0 + encoded.count)].elementsEqual(encoded)
        }
        #expect(found)
    }

    @Test(arguments: [(ECCurve.p256, DigestAlgorithm.sha256), (.p384, .sha384), (.p256, .sha384)])
    func signaturesVerifyOnlyWithTheIssuerKey(curve: ECCurve, digest: DigestAlgorithm) throws {
        let chain = try Self.chain(rootCurve: curve, digest: digest)
        #expect(chain.intermediate.signatureDigest == digest)
        #expect(chain.leaf.isSigned(by: try chain.intermediate.publicKey))
        #expect(chain.intermediate.isSigned(by: try chain.root.publicKey))
        #expect(chain.root.isSigned(by: try chain.root.publicKey))
        #expect(!chain.leaf.isSigned(by: try chain.root.publicKey))
        #expect(!chain.intermediate.isSigned(by: try chain.intermediate.publicKey))
        #expect(try chain.leaf.publicKey.curve == .p256)
        #expect(try chain.root.publicKey.curve == curve)
        #expect(try chain.leaf.publicKey.derRepresentation == chain.leafKey.publicKey.derRepresentation)
    }

    @Test func parsesDERAndPEMAndRejectsGarbage() throws {
        let chain = try Self.chain()
        let der = chain.leaf.derRepresentation
        #expect(try X509Certificate(derRepresentation: der) == chain.leaf)
        let pem =
            "-----BEGIN CERTIFICATE-----\n" + Self.base64Lines(der) + "-----END CERTIFICATE-----\n"
        #expect(try X509Certificate(pemRepresentation: pem) == chain.leaf)
        #expect(try X509Certificate(fileContents: Array(pem.utf8)) == chain.leaf)
        #expect(try X509Certificate(fileContents: der) == chain.leaf)

        #expect(throws: CryptoError(.invalidEncoding, "")) {
            try X509Certificate(derRepresentation: der + [0])
        }
        #expect(throws: CryptoError(.invalidEncoding, "")) {
            try X509Certificate(derRepresentation: Array(der.dropLast()))
        }
        #expect(throws: CryptoError(.invalidEncoding, "")) {
            try X509Certificate(derRepresentation: [])
        }
        #expect(throws: CryptoError(.invalidEncoding, "")) {
            try X509Certificate(pemRepresentation: "hello")
        }
    }

    /// A PEM file may hold several certificates (a bundle of roots): ``certificates(fileContents:)`` reads them
    /// all, in order; a DER file holds one.
    @Test func aPEMBundleGivesEveryCertificate() throws {
        let chain = try Self.chain()
        let other = try Self.chain()
        #expect(try X509Certificate(pemRepresentation: chain.root.pemRepresentation) == chain.root)
        let bundle = "# roots\n" + other.root.pemRepresentation + "\n" + chain.root.pemRepresentation
        #expect(try X509Certificate.certificates(fileContents: Array(bundle.utf8)) == [other.root, chain.root])
        #expect(try X509Certificate(fileContents: Array(bundle.utf8)) == other.root, "the initializer reads one")
        #expect(try X509Certificate.certificates(fileContents: chain.root.derRepresentation) == [chain.root])
        let broken = other.root.pemRepresentation + "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
        #expect(throws: CryptoError(.invalidEncoding, "")) {
            try X509Certificate.certificates(fileContents: Array(broken.utf8))
        }
        let unterminated = other.root.pemRepresentation + "-----BEGIN CERTIFICATE-----\nAAAA\n"
        #expect(throws: CryptoError(.invalidEncoding, "")) {
            try X509Certificate.certificates(fileContents: Array(unterminated.utf8))
        }
        #expect(throws: CryptoError(.invalidEncoding, "")) {
            try X509Certificate.certificates(fileContents: Array("-----BEGIN PUBLIC KEY-----\n".utf8))
        }
    }

    @Test func fingerprintIsColonSeparatedUpperCaseSHA256() throws {
        let chain = try Self.chain()
        let text = chain.root.fingerprintDescription
        #expect(text.count == 32 * 3 - 1)
        #expect(text == text.uppercased())
        #expect(
            Hex.decode(text.split(separator: ":").joined()) == SHA256.hash(chain.root.derRepresentation))
    }

    /// The real Apple root is not part of the repository; the test runs only where it was downloaded.
    @Test(.enabled(if: AppleRootFile.bytes != nil, "Apple Root CA - G3 is not downloaded"))
    func appleRootCAG3ParsesWithItsKnownFingerprint() throws {
        let bytes = try #require(AppleRootFile.bytes)
        let root = try X509Certificate(fileContents: bytes)
        #expect(root.fingerprintDescription.hasPrefix("63:34:3A:BF"))
        #expect(root.fingerprintDescription.hasSuffix("3E:91:79"))
        #expect(root.subjectSummary.contains("CN=Apple Root CA - G3"))
        #expect(root.isCA)
        #expect(root.criticalExtensionOIDs == ["2.5.29.19", "2.5.29.15"])  // basicConstraints, keyUsage
        #expect(root.notBefore == 1_398_881_946_000)
        #expect(root.notAfter == 2_187_800_346_000)
        #expect(root.signatureDigest == .sha384)
        #expect(try root.publicKey.curve == .p384)
        #expect(root.isSigned(by: try root.publicKey))
    }

    @Test func extraExtensionsAreAddedCriticalOrNotAndNameConstraintsAreChecked() throws {
        let chain = try Self.chain()
        let key = try ECPrivateKey(generating: .p256)
        var builder = CertificateBuilder(
            subject: DistinguishedName(commonName: "Constrained CA", organization: "Ledger Tests"),
            publicKey: key.publicKey, notBefore: Self.start, notAfter: Self.start + Self.day)
        builder.isCA = true
        builder.extensions = [
            .init("extendedKeyUsage", "codeSigning", isCritical: true),
            .init("subjectAltName", "DNS:ca.example.com", isCritical: false),
            .nameConstraints(
                permitted: [DistinguishedName(commonName: "Test Leaf")],
                excluded: [DistinguishedName(commonName: "Test Leaf", organization: "Somebody Else")]),
        ]
        let ca = try builder.signed(by: chain.root, key: chain.rootKey, digest: .sha256)
        #expect(ca.criticalExtensionOIDs == ["2.5.29.19", "2.5.29.37", "2.5.29.30"])
        #expect(ca.hasExtension(oid: "2.5.29.17") && ca.hasNameConstraints && !ca.hasInvalidExtensions)
        // libcrypto's own flag counts a critical extendedKeyUsage as handled.
        #expect(!ca.hasUnhandledCriticalExtension)

        func leaf(_ name: DistinguishedName) throws -> X509Certificate {
            try CertificateBuilder(
                subject: name, publicKey: key.publicKey, notBefore: Self.start, notAfter: Self.start + Self.day
            ).signed(by: ca, key: key, digest: .sha256)
        }
        #expect(ca.nameConstraintsPermit(try leaf(DistinguishedName(commonName: "Test Leaf"))))
        #expect(ca.nameConstraintsPermit(try leaf(DistinguishedName(commonName: "Test Leaf", organization: "Ledger"))))
        #expect(!ca.nameConstraintsPermit(try leaf(DistinguishedName(commonName: "Other Leaf"))))
        #expect(
            !ca.nameConstraintsPermit(
                try leaf(DistinguishedName(commonName: "Test Leaf", organization: "Somebody Else")))
        )
        // No nameConstraints: everything is permitted.
        #expect(chain.root.nameConstraintsPermit(ca) && !chain.root.hasNameConstraints)
    }

    @Test func emptyValidityWindowIsRefused() throws {
        let key = try ECPrivateKey(generating: .p256)
        let builder = CertificateBuilder(
            subject: DistinguishedName(commonName: "Backwards"), publicKey: key.publicKey,
            notBefore: Self.start, notAfter: Self.start - 1)
        #expect(throws: CryptoError(.invalidArgument, "")) {
            try builder.selfSigned(with: key, digest: .sha256)
        }
    }

    static func base64Lines(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var text = ""
        var index = 0
        while index < bytes.count {
            let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
            let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
            for position in 0..<4 {
                text.append(position <= chunk.count ? alphabet[(value >> (18 - 6 * position)) & 63] : "=")
            }
            index += 3
            if index % 48 == 0 { text.append("\n") }
        }
        return text.hasSuffix("\n") ? text : text + "\n"
    }
}
