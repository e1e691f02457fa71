import LedgerAppStore
import LedgerCore
import LedgerJSON
import LedgerTesting
import Testing

/// The app and environment checks after the signature, the nested data, configuration and the
/// unsigned Xcode/LocalTesting environments.
@Suite("Verification: app, environment and nested data")
struct VerificationPayloadChecksTests {
    static let pki = TestPKI.shared

    @Test func aNestedTransactionForAnotherAppIsRejected() throws {
        let transaction = TestPKI.Payloads.transaction(bundleId: "com.example.other")
        let signed = try Self.pki.signedNotification(transaction: transaction)
        do {
            _ = try Self.pki.verifier().verifyNotification(signed)
            Issue.record("a notification with another app's transaction was accepted")
        } catch {
            #expect(error.status == .invalidAppIdentifier)
            #expect(error.message.hasPrefix("data.signedTransactionInfo: "))
        }
    }

    @Test func aNestedTransactionOrRenewalFromAnotherEnvironmentIsRejected() throws {
        let transaction = TestPKI.Payloads.transaction(environment: .production)
        #expect(throws: VerificationError(.invalidEnvironment, "")) {
            try Self.pki.verifier().verifyNotification(
                try Self.pki.signedNotification(transaction: transaction))
        }
        let renewal = TestPKI.Payloads.renewalInfo(environment: .production)
        #expect(throws: VerificationError(.invalidEnvironment, "")) {
            try Self.pki.verifier().verifyNotification(
                try Self.pki.signedNotification(renewalInfo: renewal))
        }
    }

    @Test func aNestedJWSWithABadSignatureRejectsTheNotification() throws {
        let good = try Self.pki.sign(TestPKI.Payloads.transaction())
        let data = TestPKI.Payloads.notificationData(
            signedTransactionInfo: JWSParts.flippingSignatureBit(good))
        let signed = try Self.pki.sign(TestPKI.Payloads.notification(type: "DID_RENEW", data: data))
        #expect(throws: VerificationError(.invalidJWTFormat, "")) {
            try Self.pki.verifier().verifyNotification(signed)
        }
    }

    @Test func renewalInfoIsCheckedForEnvironmentOnly() throws {
        let renewal = TestPKI.Payloads.renewalInfo().setting(["bundleId"], to: "com.example.other")
        #expect(throws: Never.self) {
            try Self.pki.verifier().verifyRenewalInfo(try Self.pki.sign(renewal))
        }
    }

    @Test func withoutAConfiguredBundleTheBundleCheckIsSkipped() throws {
        let signed = try Self.pki.signedNotification(bundleId: "com.example.other")
        #expect(throws: Never.self) { try Self.pki.verifier(bundleId: nil).verifyNotification(signed) }
    }

    @Test func theAppIdentifierIsCheckedBeforeTheEnvironment() throws {
        let signed = try Self.pki.signedNotification(
            bundleId: "com.example.other", environment: .production)
        #expect(throws: VerificationError(.invalidAppIdentifier, "")) {
            try Self.pki.verifier(environment: .sandbox).verifyNotification(signed)
        }
    }

    @Test func summaryNotificationsAreCheckedFromTheirSummary() throws {
        let summary: JSONValue = .object([
            "requestIdentifier": "req-1", "environment": "Sandbox", "appAppleId": 1_234_567_890,
            "bundleId": "com.visla.gps", "productId": "com.visla.gps.monthly_3", "succeededCount": 5,
            "failedCount": 0,
        ])
        let payload = TestPKI.Payloads.notification(
            type: "RENEWAL_EXTENSION", subtype: "SUMMARY", data: summary, part: "summary")
        #expect(throws: Never.self) {
            try Self.pki.verifier().verifyNotification(try Self.pki.sign(payload))
        }
        let otherApp = payload.setting(["summary", "bundleId"], to: "com.example.other")
        #expect(throws: VerificationError(.invalidAppIdentifier, "")) {
            try Self.pki.verifier().verifyNotification(try Self.pki.sign(otherApp))
        }
    }

    @Test(arguments: [("SANDBOX_abc", LedgerEnvironment.sandbox), ("abc", .production)])
    func externalPurchaseTokensDeriveTheirEnvironment(
        purchaseId: String, environment: LedgerEnvironment
    ) throws {
        let token: JSONValue = .object([
            "externalPurchaseId": .string(purchaseId), "tokenCreationDate": 1_772_323_200_000,
            "appAppleId": 1_234_567_890, "bundleId": "com.visla.gps",
        ])
        let payload = TestPKI.Payloads.notification(
            type: "EXTERNAL_PURCHASE_TOKEN", subtype: "UNREPORTED", data: token,
            part: "externalPurchaseToken")
        let signed = try Self.pki.sign(payload)
        #expect(throws: Never.self) {
            try Self.pki.verifier(environment: environment).verifyNotification(signed)
        }
        let other: LedgerEnvironment = environment == .sandbox ? .production : .sandbox
        #expect(throws: VerificationError(.invalidEnvironment, "")) {
            try Self.pki.verifier(environment: other).verifyNotification(signed)
        }
    }

    @Test func appDataNotificationsAreCheckedFromTheirAppData() throws {
        let appData: JSONValue = .object([
            "appAppleId": 1_234_567_890, "bundleId": "com.visla.gps", "environment": "Sandbox",
        ])
        let payload = TestPKI.Payloads.notification(
            type: "RESCIND_CONSENT", data: appData, part: "appData")
        #expect(throws: Never.self) {
            try Self.pki.verifier().verifyNotification(try Self.pki.sign(payload))
        }
        #expect(throws: VerificationError(.invalidEnvironment, "")) {
            try Self.pki.verifier(environment: .production).verifyNotification(try Self.pki.sign(payload))
        }
    }

    @Test func aNotificationNamingNoAppIsRejectedWhenABundleIsConfigured() throws {
        let signed = try Self.pki.sign(TestPKI.Payloads.notification(type: "TEST"))
        #expect(throws: VerificationError(.invalidAppIdentifier, "")) {
            try Self.pki.verifier().verifyNotification(signed)
        }
        #expect(throws: VerificationError(.invalidEnvironment, "")) {
            try Self.pki.verifier(bundleId: nil).verifyNotification(signed)
        }
    }

    @Test func aFieldOfTheWrongTypeIsAFormatError() throws {
        let payload = TestPKI.Payloads.notification(
            type: "DID_RENEW", data: TestPKI.Payloads.notificationData())
        for (path, value) in [
            (["data", "bundleId"], JSONValue.integer(7)), (["signedDate"], "yesterday"), (["data"], "x"),
        ] {
            let signed = try Self.pki.sign(payload.setting(path, to: value))
            #expect(throws: VerificationError(.invalidJWTFormat, "")) {
                try Self.pki.verifier().verifyNotification(signed)
            }
        }
    }

    @Test func productionWithoutAnAppAppleIdIsAConfigurationError() throws {
        #expect(throws: VerificationError(.invalidAppAppleId, "")) {
            try VerifierConfiguration(
                rootCertificates: [Self.pki.rootDER], bundleId: "com.visla.gps", appAppleId: nil,
                environment: .production)
        }
    }

    @Test func verifyingWithoutATrustRootIsRefused() throws {
        let configuration = try VerifierConfiguration(
            rootCertificates: [], bundleId: nil, appAppleId: nil, environment: .sandbox)
        #expect(throws: VerificationError(.invalidCertificate, "")) {
            try SignedDataVerifier(configuration: configuration)
        }
        let garbage = try VerifierConfiguration(
            rootCertificates: [[1, 2, 3]], bundleId: nil, appAppleId: nil, environment: .sandbox)
        #expect(throws: VerificationError(.invalidCertificate, "")) {
            try SignedDataVerifier(configuration: garbage)
        }
    }

    @Test(arguments: [LedgerEnvironment.xcode, .localTesting])
    func xcodeAndLocalTestingSkipTheSignatureButNotTheEnvironment(environment: LedgerEnvironment)
        throws
    {
        let configuration = try VerifierConfiguration(
            rootCertificates: [], bundleId: "com.visla.gps", appAppleId: nil, environment: environment)
        let verifier = try SignedDataVerifier(configuration: configuration)
        // Unsigned, with a fractional signedDate, as Xcode writes it.
        let transaction = TestPKI.Payloads.transaction(environment: environment)
            .setting(["signedDate"], to: .double(1_697_679_936_049.7297))
        let unsigned = JWSParts.replacingPayload("eyJhbGciOiJFUzI1NiJ9.e30.AAAA", with: transaction)
        #expect(try verifier.verifyTransaction(unsigned)["environment"]?.string == environment.rawValue)
        let sandbox = JWSParts.replacingPayload(
            unsigned, with: TestPKI.Payloads.transaction(environment: .sandbox))
        #expect(throws: VerificationError(.invalidEnvironment, "")) {
            try verifier.verifyTransaction(sandbox)
        }
        #expect(throws: VerificationError(.invalidJWTFormat, "")) {
            try verifier.verifyTransaction("not.a.jws")
        }
    }

    @Test func inputIsEitherABodyOrAJWS() throws {
        let signed = try Self.pki.signedNotification()
        #expect(try SignedDataVerifier.signedData(fromInput: Array("  \(signed)\n".utf8)) == signed)
        #expect(try SignedDataVerifier.signedData(fromInput: TestPKI.body(signed) + [0x0A]) == signed)
        #expect(throws: VerificationError(.invalidJWTFormat, "")) {
            try SignedDataVerifier.signedData(fromInput: [0x0A])
        }
    }

    @Test func oversizedInputIsRejectedBeforeParsing() throws {
        let huge = String(repeating: "A", count: CompactJWS.maximumByteCount + 1)
        #expect(throws: VerificationError(.invalidJWTFormat, "")) {
            try Self.pki.verifier().verifyTransaction(huge)
        }
        let body = [UInt8](repeating: 0x20, count: SignedDataVerifier.maximumBodyByteCount + 1)
        #expect(throws: VerificationError(.invalidJWTFormat, "")) {
            try SignedDataVerifier.signedPayload(fromBody: body)
        }
    }
}
