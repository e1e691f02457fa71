import LedgerAppStore
import LedgerCore
import LedgerJSON
import LedgerTesting
import Testing

/// `NestedSignaturePolicy`: what skipping the nested ECDSA step does and does not skip.
@Suite("Verification: nested signature policy")
struct VerificationNestedPolicyTests {
    static let pki = TestPKI.shared

    static func verifier(_ policy: NestedSignaturePolicy) throws -> SignedDataVerifier {
        let configuration = try VerifierConfiguration(
            rootCertificates: [pki.rootDER], bundleId: TestPKI.bundleId, appAppleId: TestPKI.appAppleId,
            environment: .sandbox, nestedSignatures: policy)
        return try SignedDataVerifier(configuration: configuration)
    }

    /// A notification signed by `envelope` whose transaction is `signedTransaction`.
    static func notification(signedTransaction: String, envelope: TestPKI = pki) throws -> String {
        let data = TestPKI.Payloads.notificationData(signedTransactionInfo: signedTransaction)
        return try envelope.sign(TestPKI.Payloads.notification(type: "DID_RENEW", data: data))
    }

    @Test(arguments: NestedSignaturePolicy.allCases)
    func aValidNotificationIsAcceptedUnderEitherPolicy(policy: NestedSignaturePolicy) throws {
        let verified = try Self.verifier(policy).verifyNotification(try Self.pki.signedNotification())
        #expect(verified.transaction?["transactionId"]?.string == "2000000000000002")
        #expect(verified.renewalInfo?["environment"]?.string == "Sandbox")
    }

    @Test func underVerifyANestedSignatureIsCheckedEvenInsideASignedEnvelope() throws {
        let broken = JWSParts.flippingSignatureBit(try Self.pki.sign(TestPKI.Payloads.transaction()))
        let signed = try Self.notification(signedTransaction: broken)
        #expect(throws: VerificationError(.invalidJWTFormat, "")) {
            try Self.verifier(.verify).verifyNotification(signed)
        }
        // The envelope's own signature covers these exact bytes, and the header is the envelope's.
        #expect(throws: Never.self) { try Self.verifier(.coveredByEnvelope).verifyNotification(signed) }
    }

    @Test func aNestedJWSFromAnotherSignerIsAlwaysVerified() throws {
        let impostor = try TestPKI()
        let signed = try Self.notification(
            signedTransaction: try impostor.sign(TestPKI.Payloads.transaction()))
        for policy in NestedSignaturePolicy.allCases {
            #expect(throws: VerificationError(.verificationFailure, "")) {
                try Self.verifier(policy).verifyNotification(signed)
            }
        }
    }

    @Test func theNestedChainAndChecksStillApplyWhenTheSignatureIsCovered() throws {
        let start = TestPKI.Payloads.signedDate
        var options = ApplePKI.Options()
        options.leafValidity = start...(start + 86_400_000)
        let pki = try TestPKI(options)
        let configuration = try VerifierConfiguration(
            rootCertificates: [pki.rootDER], bundleId: TestPKI.bundleId, appAppleId: TestPKI.appAppleId,
            environment: .sandbox, nestedSignatures: .coveredByEnvelope)
        let verifier = try SignedDataVerifier(configuration: configuration)
        let late = try pki.sign(TestPKI.Payloads.transaction(signedDate: start + 3 * 86_400_000))
        #expect(throws: VerificationError(.verificationFailure, "")) {
            try verifier.verifyNotification(try Self.notification(signedTransaction: late, envelope: pki))
        }
        let otherApp = try pki.sign(TestPKI.Payloads.transaction(bundleId: "com.example.other"))
        #expect(throws: VerificationError(.invalidAppIdentifier, "")) {
            try verifier.verifyNotification(
                try Self.notification(signedTransaction: otherApp, envelope: pki))
        }
    }
}
