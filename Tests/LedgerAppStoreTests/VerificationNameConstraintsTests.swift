import LedgerAppStore
import LedgerAppStoreTestKit
import LedgerCrypto
import LedgerTesting
import Testing

/// Name constraints (RFC 5280 §4.2.1.10): the nameConstraints of the intermediate bind the leaf, and
/// those of the trust root bind the intermediate and the leaf.
@Suite("Verification: name constraints")
struct VerificationNameConstraintsTests {
    static let options = ApplePKI.Options()

    @Test func aLeafOutsideTheIntermediatesPermittedSubtreeIsRejected() throws {
        var options = Self.options
        options.intermediateExtensions = [
            .nameConstraints(permitted: [DistinguishedName(commonName: "Somebody Else")])
        ]
        let error = try #require(try TestPKI(options).transactionVerificationError())
        #expect(error.status == .verificationFailure)
        #expect(error.message.contains("violate the intermediate's nameConstraints"))
    }

    @Test(arguments: [
        Self.options.leafName,
        DistinguishedName(commonName: Self.options.leafName.attributes[0].value),
    ])
    func aLeafInsideTheIntermediatesPermittedSubtreeIsAccepted(subtree: DistinguishedName) throws {
        var options = Self.options
        options.intermediateExtensions = [.nameConstraints(permitted: [subtree])]
        #expect(try TestPKI(options).transactionVerificationError() == nil)
    }

    @Test func aLeafInAnExcludedSubtreeIsRejectedAndOneOutsideItAccepted() throws {
        var options = Self.options
        options.intermediateExtensions = [.nameConstraints(excluded: [Self.options.leafName])]
        let error = try #require(try TestPKI(options).transactionVerificationError())
        #expect(error.status == .verificationFailure)
        #expect(error.message.contains("nameConstraints"))

        options.intermediateExtensions = [.nameConstraints(excluded: [DistinguishedName(commonName: "Somebody Else")])]
        #expect(try TestPKI(options).transactionVerificationError() == nil)
    }

    @Test(arguments: [("signer.example.com", true), ("example.com", true), ("signer.example.org", false)])
    func theLeafsSubjectAltNamesAreChecked(dnsName: String, accepted: Bool) throws {
        var options = Self.options
        options.intermediateExtensions = [.init("nameConstraints", "permitted;DNS:example.com", isCritical: true)]
        options.leafExtensions = [.init("subjectAltName", "DNS:\(dnsName)", isCritical: false)]
        let error = try TestPKI(options).transactionVerificationError()
        #expect((error == nil) == accepted)
        #expect(error.map { $0.status == .verificationFailure } ?? true)
    }

    /// Intermediate and leaf names under one `C=US, O=Visla Ledger` subtree.
    static var sharedPrefix: ApplePKI.Options {
        var options = Self.options
        options.intermediateName = DistinguishedName([
            .init("C", "US"), .init("O", "Visla Ledger"), .init("CN", "WWDR"),
        ])
        options.leafName = DistinguishedName([.init("C", "US"), .init("O", "Visla Ledger"), .init("CN", "Signer")])
        return options
    }

    @Test func theRootsPermittedSubtreeBindsTheIntermediateAndTheLeaf() throws {
        var options = Self.sharedPrefix
        options.rootExtensions = [
            .nameConstraints(permitted: [DistinguishedName([.init("C", "US"), .init("O", "Visla Ledger")])])
        ]
        #expect(try TestPKI(options).transactionVerificationError() == nil)

        options.rootExtensions = [
            .nameConstraints(permitted: [DistinguishedName([.init("C", "US"), .init("O", "Somebody Else")])])
        ]
        let error = try #require(try TestPKI(options).transactionVerificationError())
        #expect(error.status == .verificationFailure)
        #expect(error.message.contains("the intermediate certificate's names"))
        #expect(error.message.contains("nameConstraints of the trust root"))
    }

    @Test(arguments: ["intermediate", "leaf"])
    func aNameTheRootExcludesIsRejectedBelowIt(which: String) throws {
        var options = Self.sharedPrefix
        let excluded = which == "leaf" ? options.leafName : options.intermediateName
        options.rootExtensions = [.nameConstraints(excluded: [excluded])]
        let error = try #require(try TestPKI(options).transactionVerificationError())
        #expect(error.status == .verificationFailure)
        #expect(error.message.contains("the \(which) certificate's names"))
    }

    @Test func aMalformedNameConstraintsExtensionFailsClosed() throws {
        // nameConstraints whose value is NULL instead of a SEQUENCE of subtrees.
        var options = Self.options
        options.intermediateExtensions = [.init(X509Certificate.nameConstraintsOID, "DER:05:00", isCritical: true)]
        let pki = try TestPKI(options)
        #expect(!pki.pki.intermediate.nameConstraintsPermit(pki.pki.leaf))
        #expect(try pki.transactionVerificationError()?.status == .verificationFailure)
    }
}
