import LedgerAppStore
import LedgerAppStoreTestKit
import LedgerCore
import LedgerJSON
import LedgerTesting
import Testing

/// Every JWS nested in a notification is verified whole, as Apple's `verifyAndDecodeTransaction` and
/// `verifyAndDecodeRenewalInfo` verify it: the envelope's valid signature over the nested bytes proves nothing about
/// the nested signature.
@Suite("Verification: nested signatures")
struct VerificationNestedSignatureTests {
    static let pki = TestPKI.shared

    /// A notification signed by `envelope` whose transaction and renewal info are the given JWS.
    static func notification(
        signedTransaction: String? = nil, signedRenewal: String? = nil, envelope: TestPKI = pki
    ) throws -> String {
        let data = TestPKI.Payloads.notificationData(
            signedTransactionInfo: try signedTransaction ?? pki.sign(TestPKI.Payloads.transaction()),
            signedRenewalInfo: try signedRenewal ?? pki.sign(TestPKI.Payloads.renewalInfo()))
        return try envelope.sign(TestPKI.Payloads.notification(type: "DID_RENEW", data: data))
    }

    @Test func aValidNotificationIsAccepted() throws {
        let verified = try Self.pki.verifier().verifyNotification(try Self.pki.signedNotification())
        #expect(verified.transaction?["transactionId"]?.string == "2000000000000002")
        #expect(verified.renewalInfo?["environment"]?.string == "Sandbox")
    }

    @Test func aBadTransactionSignatureUnderAGoodEnvelopeIsRefusedNamingTheField() throws {
        let broken = JWSParts.flippingSignatureBit(try Self.pki.sign(TestPKI.Payloads.transaction()))
        let signed = try Self.notification(signedTransaction: broken)
        do {
            _ = try Self.pki.verifier().verifyNotification(signed)
            Issue.record("a notification with a bad nested signature was accepted")
        } catch {
            #expect(error.status == .invalidJWTFormat)
            #expect(error.message.contains("data.signedTransactionInfo"))
            #expect(error.message.contains("signature does not verify"))
        }
    }

    @Test func aBadRenewalSignatureUnderAGoodEnvelopeIsRefusedNamingTheField() throws {
        let broken = JWSParts.flippingSignatureBit(try Self.pki.sign(TestPKI.Payloads.renewalInfo()))
        let signed = try Self.notification(signedRenewal: broken)
        do {
            _ = try Self.pki.verifier().verifyNotification(signed)
            Issue.record("a notification with a bad nested signature was accepted")
        } catch {
            #expect(error.status == .invalidJWTFormat)
            #expect(error.message.contains("data.signedRenewalInfo"))
        }
    }

    @Test func aNestedPayloadAlteredAfterSigningIsRefused() throws {
        let original = try Self.pki.sign(TestPKI.Payloads.transaction())
        let altered = JWSParts.replacingPayload(
            original, with: try JWSParts.payload(original).setting(["productId"], to: "com.visla.gps.annual_10"))
        #expect(throws: VerificationError(.invalidJWTFormat, "")) {
            try Self.pki.verifier().verifyNotification(try Self.notification(signedTransaction: altered))
        }
    }

    @Test func aNestedJWSFromAnotherSignerIsRefused() throws {
        let impostor = try TestPKI()
        let signed = try Self.notification(signedTransaction: try impostor.sign(TestPKI.Payloads.transaction()))
        #expect(throws: VerificationError(.verificationFailure, "")) {
            try Self.pki.verifier().verifyNotification(signed)
        }
    }

    @Test func theNestedChainIsValidatedAtTheNestedSignedDate() throws {
        let start = TestPKI.Payloads.signedDate
        var options = ApplePKI.Options()
        options.leafValidity = start...(start + 86_400_000)
        let pki = try TestPKI(options)
        let late = try pki.sign(TestPKI.Payloads.transaction(signedDate: start + 3 * 86_400_000))
        #expect(throws: VerificationError(.verificationFailure, "")) {
            try pki.verifier().verifyNotification(try Self.notification(signedTransaction: late, envelope: pki))
        }
    }

    /// The nested JWSs share the envelope's checked header only when their header bytes are the same: one that
    /// differs (here its `alg`, the chain unchanged) is judged by the header rules on its own.
    @Test func aNestedHeaderUnlikeTheEnvelopesIsCheckedOnItsOwn() throws {
        var parts = JWSParts.split(try Self.pki.sign(TestPKI.Payloads.transaction()))
        let header = try JSONValue.parse(Base64.decodeURL(parts[0]) ?? [])
        parts[0] = Base64.encodeURL(header.setting(["alg"], to: "ES384").serializedBytes())
        let signed = try Self.notification(signedTransaction: parts.joined(separator: "."))
        do {
            _ = try Self.pki.verifier().verifyNotification(signed)
            Issue.record("a nested JWS with an ES384 header was accepted")
        } catch {
            #expect(error.status == .invalidJWTFormat)
            #expect(error.message.contains("data.signedTransactionInfo"))
            #expect(error.message.contains("\"ES384\"; App Store data is signed with ES256"))
        }
    }

    @Test func aNestedTransactionOfAnotherAppIsRefused() throws {
        let otherApp = try Self.pki.sign(TestPKI.Payloads.transaction(bundleId: "com.example.other"))
        #expect(throws: VerificationError(.invalidAppIdentifier, "")) {
            try Self.pki.verifier().verifyNotification(try Self.notification(signedTransaction: otherApp))
        }
    }
}
