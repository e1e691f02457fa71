import LedgerAppStore
import LedgerAppStoreTestKit
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
        // Unsigned data still has a header of Apple's types: an x5c of numbers is not one.
        for header in [#"{"alg":"ES256","x5c":[1,2]}"#, #"{"alg":256}"#] {
            let odd = JWSParts.replacingPayload(
                Base64.encodeURL(Array(header.utf8)) + ".e30.AAAA", with: transaction)
            #expect(throws: VerificationError(.invalidJWTFormat, "")) { try verifier.verifyTransaction(odd) }
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

    /// A notification with `appAppleId` written as the raw JSON `text` in `data`, signed as written.
    func notification(appAppleId text: String, environment: LedgerEnvironment) throws -> String {
        let data = TestPKI.Payloads.notificationData(
            appAppleId: nil, environment: environment,
            signedTransactionInfo: try Self.pki.sign(TestPKI.Payloads.transaction(environment: environment)),
            signedRenewalInfo: try Self.pki.sign(TestPKI.Payloads.renewalInfo(environment: environment)))
        let json = TestPKI.Payloads.notification(type: "DID_RENEW", data: data).serialized().replacing(
            "\"environment\":", with: "\"appAppleId\":\(text),\"environment\":")
        return try Self.pki.signer.sign(payloadBytes: Array(json.utf8))
    }

    @Test(arguments: ["1234567890.0", "1.23456789e9", "123456789000e-2"])
    func anAppAppleIdWrittenWithAFractionOrExponentIsTheSameInteger(text: String) throws {
        let signed = try notification(appAppleId: text, environment: .production)
        let verified = try Self.pki.verifier(environment: .production).verifyNotification(signed)
        #expect(try DecodedNotification(verified).notification.appAppleId == TestPKI.appAppleId)
    }

    @Test(arguments: ["1234567890.5", "1e19", "\"1234567890\""])
    func anAppAppleIdThatIsNotAnIntegerIsAFormatError(text: String) throws {
        let signed = try notification(appAppleId: text, environment: .sandbox)
        #expect(throws: VerificationError(.invalidJWTFormat, "")) {
            try Self.pki.verifier().verifyNotification(signed)
        }
    }

    /// A notification's payload is decoded into Apple's model before its chain is looked at, as Apple's libraries
    /// decode it: a field of the wrong type is INVALID_JWT_FORMAT, as their JSONDecoder reports it, whatever else
    /// is wrong (here an untrusted chain, or another app's bundle).
    @Test(
        arguments: [
            (["notificationUUID"], JSONValue.integer(42)), (["version"], .integer(2)),
            (["notificationType"], .integer(1)),
            (["data", "status"], .string("1")), (["data", "status"], .integer(4_294_967_297)),
            (["data", "bundleVersion"], .integer(637)), (["data", "status"], .double(1.5)),
        ] as [([String], JSONValue)])
    func aWronglyTypedFieldFailsTheTypedDecodingAsAFormatError(path: [String], value: JSONValue) throws {
        let payload = TestPKI.Payloads.notification(type: "DID_RENEW", data: TestPKI.Payloads.notificationData())
            .setting(path, to: value)
        let signed = try Self.pki.sign(payload)
        let stranger = try TestPKI(ApplePKI.Options())
        for verifier in [
            try Self.pki.verifier(), try Self.pki.verifier(roots: [stranger.rootDER]),
            try Self.pki.verifier(bundleId: "com.example.other"),
        ] {
            let error = #expect(throws: VerificationError.self) { try verifier.verifyNotification(signed) }
            #expect(error?.status == .invalidJWTFormat)
            #expect(error?.message.contains(path.joined(separator: ".")) == true)
        }
    }

    /// A transaction or renewal info verified on its own (`inspect --as`, reconcile) is decoded into its model
    /// first too: a wrongly typed field under an untrusted chain is INVALID_JWT_FORMAT.
    @Test func aWronglyTypedTransactionOrRenewalIsAFormatErrorBeforeItsChain() throws {
        let stranger = try TestPKI(ApplePKI.Options()).verifier()
        let transaction = try Self.pki.sign(TestPKI.Payloads.transaction().setting(["price"], to: "11700"))
        #expect(throws: VerificationError(.invalidJWTFormat, "")) { try stranger.verifyTransaction(transaction) }
        let renewal = try Self.pki.sign(TestPKI.Payloads.renewalInfo().setting(["autoRenewStatus"], to: "1"))
        #expect(throws: VerificationError(.invalidJWTFormat, "")) { try stranger.verifyRenewalInfo(renewal) }
        // Well typed, the same chain is what fails.
        #expect(throws: VerificationError(.verificationFailure, "")) {
            try stranger.verifyTransaction(try Self.pki.sign(TestPKI.Payloads.transaction()))
        }
    }

    @Test func aNestedTransactionOrRenewalOfTheWrongTypeFailsTheTypedDecoding() throws {
        for (transaction, renewal) in [
            (TestPKI.Payloads.transaction().setting(["price"], to: "11700"), TestPKI.Payloads.renewalInfo()),
            (
                TestPKI.Payloads.transaction().setting(["expiresDate"], to: "1774828800000"),
                TestPKI.Payloads.renewalInfo()
            ),
            (TestPKI.Payloads.transaction().setting(["quantity"], to: .double(1.5)), TestPKI.Payloads.renewalInfo()),
            (TestPKI.Payloads.transaction(), TestPKI.Payloads.renewalInfo().setting(["autoRenewStatus"], to: "1")),
        ] {
            let signed = try Self.pki.signedNotification(transaction: transaction, renewalInfo: renewal)
            let verified = try Self.pki.verifier().verifyNotification(signed)
            #expect(throws: VerificationError(.invalidJWTFormat, "")) { try DecodedNotification(verified) }
        }
    }

    /// JSON nested `depth` levels deep, arrays and objects alternating.
    static func nested(_ depth: Int) -> JSONValue {
        var value: JSONValue = "leaf"
        for level in 0..<depth { value = level % 2 == 0 ? .array([value]) : .object(["k": value]) }
        return value
    }

    /// Foundation's JSONSerialization (under Apple's JSONDecoder) accepts nesting up to 512 levels: so does
    /// the JWS decoding, and an unused deep field does not fail the payload.
    @Test(arguments: [40, CompactJWS.maximumNestingDepth - 1])
    func anUnusedFieldNestedDeepIsAccepted(depth: Int) throws {
        // The field's own depth plus the payload object around it.
        let payload = TestPKI.Payloads.notification(type: "DID_RENEW", data: TestPKI.Payloads.notificationData())
            .setting(["unused"], to: Self.nested(depth))
        let verified = try Self.pki.verifier().verifyNotification(try Self.pki.sign(payload))
        #expect(try DecodedNotification(verified).notification.notificationType == .didRenew)
        let transaction = TestPKI.Payloads.transaction().setting(["unused"], to: Self.nested(depth))
        #expect(throws: Never.self) {
            try Self.pki.verifier().verifyTransaction(try Self.pki.sign(transaction))
        }
    }

    @Test func nestingBeyond512IsAFormatError() throws {
        let payload = TestPKI.Payloads.notification(type: "DID_RENEW", data: TestPKI.Payloads.notificationData())
            .setting(["unused"], to: Self.nested(CompactJWS.maximumNestingDepth))
        #expect(throws: VerificationError(.invalidJWTFormat, "")) {
            try Self.pki.verifier().verifyNotification(try Self.pki.sign(payload))
        }
    }
}
