import LedgerAppStore
import LedgerAppStoreTestKit
import LedgerCore
import LedgerCrypto
import LedgerJSON
import LedgerTesting
import Testing

/// The acceptance cases of issue 4: what verification accepts, and the status of every rejection.
@Suite("Verification: acceptance cases")
struct VerificationAcceptanceTests {
    static let pkis: [(String, TestPKI)] = [
        ("P-256 chain", .sharedP256), ("P-384 root and intermediate", .shared),
    ]

    @Test(arguments: pkis)
    func acceptsAValidNotificationWithItsNestedData(name: String, pki: TestPKI) throws {
        let signed = try pki.signedNotification(type: "SUBSCRIBED", subtype: "INITIAL_BUY")
        let verified = try pki.verifier().verifyNotification(signed)
        #expect(verified.notificationType == "SUBSCRIBED")
        #expect(verified.subtype == "INITIAL_BUY")
        #expect(verified.notificationUUID == TestPKI.Payloads.uuid(1))
        #expect(verified.signedDate == TestPKI.Payloads.signedDate)
        #expect(verified.signedPayload == signed)
        #expect(verified.transaction?["productId"]?.string == "com.visla.gps.monthly_3")
        #expect(verified.renewalInfo?["autoRenewStatus"]?.int64 == 1)
        let expanded = verified.expandedPayload
        #expect(
            expanded["data"]?["signedTransactionInfo"]?["transactionId"]?.string == "2000000000000002")
        #expect(
            expanded["data"]?["signedRenewalInfo"]?["autoRenewProductId"]?.string
                == "com.visla.gps.monthly_3")
    }

    @Test func acceptsTheRequestBodyAsApplePostsIt() throws {
        let pki = TestPKI.shared
        let verified = try pki.verifier().verifyNotification(
            body: TestPKI.body(try pki.signedNotification()))
        #expect(verified.notificationType == "DID_RENEW")
    }

    @Test func acceptsProductionWithTheRightAppAppleId() throws {
        let pki = TestPKI.shared
        let signed = try pki.signedNotification(environment: .production)
        let verified = try pki.verifier(environment: .production).verifyNotification(signed)
        #expect(verified.transaction?["environment"]?.string == "Production")
    }

    @Test func rejectsATamperedPayload() throws {
        let pki = TestPKI.shared
        let signed = try pki.signedNotification()
        let forged = JWSParts.replacingPayload(
            signed, with: try JWSParts.payload(signed).setting(["notificationType"], to: "REFUND"))
        #expect(throws: VerificationError(.invalidJWTFormat, "")) {
            try pki.verifier().verifyNotification(forged)
        }
    }

    @Test func rejectsATamperedSignature() throws {
        let pki = TestPKI.shared
        let forged = JWSParts.flippingSignatureBit(try pki.signedNotification())
        do {
            _ = try pki.verifier().verifyNotification(forged)
            Issue.record("a tampered signature was accepted")
        } catch {
            #expect(error.status == .invalidJWTFormat)
            #expect(error.message.contains("signature does not verify"))
        }
    }

    @Test func rejectsAChainToAnUntrustedRoot() throws {
        // Same names as the trusted PKI, different keys: only the key can tell them apart.
        let impostor = try TestPKI()
        let signed = try impostor.signedNotification()
        #expect(throws: VerificationError(.verificationFailure, "")) {
            try TestPKI.shared.verifier().verifyNotification(signed)
        }
    }

    @Test(arguments: [[], ["1.2.840.113635.100.6.11.2"], ["1.2.840.113635.100.6.11"]])
    func rejectsALeafWithoutItsOID(oids: [String]) throws {
        var options = ApplePKI.Options()
        options.leafExtensionOIDs = oids
        let pki = try TestPKI(options)
        #expect(throws: VerificationError(.verificationFailure, "")) {
            try pki.verifier().verifyNotification(try pki.signedNotification())
        }
    }

    @Test(arguments: [[], ["1.2.840.113635.100.6.2.2"], ["1.2.840.113635.100.6.11.1"]])
    func rejectsAnIntermediateWithoutItsOID(oids: [String]) throws {
        var options = ApplePKI.Options()
        options.intermediateExtensionOIDs = oids
        let pki = try TestPKI(options)
        #expect(throws: VerificationError(.verificationFailure, "")) {
            try pki.verifier().verifyNotification(try pki.signedNotification())
        }
    }

    @Test(arguments: [1, 2, 4])
    func rejectsAnX5cThatIsNotThreeCertificates(count: Int) throws {
        let pki = TestPKI.shared
        let chain = Array((pki.pki.x5c + [pki.rootDER]).prefix(count))
        let signer = try JWSSigner(privateKey: pki.pki.leafKey, certificateChain: chain)
        let signed = try signer.sign(TestPKI.Payloads.transaction())
        #expect(throws: VerificationError(.invalidChainLength, "")) {
            try pki.verifier().verifyTransaction(signed)
        }
    }

    /// An x5c of no certificates is no chain: INVALID_JWT_FORMAT, as Apple's Swift library answers (as for a
    /// missing x5c), not INVALID_CHAIN_LENGTH.
    @Test func rejectsAnEmptyX5cAsAFormatError() throws {
        let pki = TestPKI.shared
        let signer = try JWSSigner(privateKey: pki.pki.leafKey, header: ["alg": "ES256", "x5c": .array([])])
        let signed = try signer.sign(TestPKI.Payloads.transaction())
        #expect(throws: VerificationError(.invalidJWTFormat, "")) {
            try pki.verifier().verifyTransaction(signed)
        }
        #expect(throws: VerificationError(.invalidJWTFormat, "")) {
            try pki.verifier().verifyNotification(
                try pki.sign(
                    TestPKI.Payloads.notification(
                        type: "DID_RENEW",
                        data: TestPKI.Payloads.notificationData(
                            signedTransactionInfo: signed))))
        }
    }

    @Test(arguments: ["ES384", "RS256", "none", "es256"])
    func rejectsAnAlgorithmOtherThanES256(algorithm: String) throws {
        let pki = TestPKI.shared
        let header: JSONObject = [
            "alg": .string(algorithm), "x5c": .array(pki.pki.x5c.map { .string(Base64.encode($0)) }),
        ]
        let signer = try JWSSigner(privateKey: pki.pki.leafKey, header: header)
        let signed = try signer.sign(TestPKI.Payloads.transaction())
        #expect(throws: VerificationError(.invalidJWTFormat, "")) {
            try pki.verifier().verifyTransaction(signed)
        }
    }

    /// The header is decoded as Apple's libraries decode it: a `typ` or `kid` that is not a string is a format error,
    /// a string one is ignored.
    @Test func aHeaderFieldOfTheWrongTypeIsAFormatError() throws {
        let pki = TestPKI.shared
        let x5c = JSONValue.array(pki.pki.x5c.map { .string(Base64.encode($0)) })
        for (name, value) in [("typ", JSONValue.integer(1)), ("kid", .bool(true))] {
            let header: JSONObject = ["alg": "ES256", "x5c": x5c, name: value]
            let signed = try JWSSigner(privateKey: pki.pki.leafKey, header: header).sign(TestPKI.Payloads.transaction())
            #expect(throws: VerificationError(.invalidJWTFormat, "")) { try pki.verifier().verifyTransaction(signed) }
        }
        let header: JSONObject = ["alg": "ES256", "x5c": x5c, "typ": "JWT", "kid": "key"]
        let signed = try JWSSigner(privateKey: pki.pki.leafKey, header: header).sign(TestPKI.Payloads.transaction())
        #expect(throws: Never.self) { try pki.verifier().verifyTransaction(signed) }
    }

    @Test func rejectsASignedDateOutsideTheCertificatesValidity() throws {
        let day: Int64 = 86_400_000
        let start = TestPKI.Payloads.signedDate
        var options = ApplePKI.Options()
        options.leafValidity = start...(start + 30 * day)
        let pki = try TestPKI(options)
        let verifier = try pki.verifier()
        for date in [start - 1000, start + 30 * day + 1000] {
            let signed = try pki.signedNotification(signedDate: date)
            do {
                _ = try verifier.verifyNotification(signed)
                Issue.record("a notification signed at \(Instant(milliseconds: date)) was accepted")
            } catch {
                #expect(error.status == .verificationFailure)
                #expect(error.message.contains("outside the certificates' common validity"))
            }
        }
        for date in [start, start + 30 * day] {
            #expect(throws: Never.self) {
                try verifier.verifyNotification(try pki.signedNotification(signedDate: date))
            }
        }
    }

    @Test func rejectsAWrongBundle() throws {
        let pki = TestPKI.shared
        let signed = try pki.signedNotification(bundleId: "com.example.other")
        #expect(throws: VerificationError(.invalidAppIdentifier, "")) {
            try pki.verifier().verifyNotification(signed)
        }
    }

    @Test func rejectsAWrongAppAppleIdInProductionOnly() throws {
        let pki = TestPKI.shared
        let production = try pki.signedNotification(appAppleId: 42, environment: .production)
        #expect(throws: VerificationError(.invalidAppIdentifier, "")) {
            try pki.verifier(environment: .production).verifyNotification(production)
        }
        let sandbox = try pki.signedNotification(appAppleId: 42, environment: .sandbox)
        #expect(throws: Never.self) {
            try pki.verifier(environment: .sandbox).verifyNotification(sandbox)
        }
    }

    @Test func rejectsAWrongEnvironment() throws {
        let pki = TestPKI.shared
        let signed = try pki.signedNotification(environment: .production)
        #expect(throws: VerificationError(.invalidEnvironment, "")) {
            try pki.verifier(environment: .sandbox).verifyNotification(signed)
        }
    }

    @Test(arguments: [
        "", "hello", "a.b", "a.b.c.d", "....", "e30.e30.", "e30.bm90IGpzb24.AAAA", "W10.e30.AAAA",
    ])
    func rejectsTextThatIsNotAJWS(text: String) throws {
        #expect(throws: VerificationError(.invalidJWTFormat, "")) {
            try TestPKI.shared.verifier().verifyNotification(text)
        }
    }

    @Test(arguments: ["", "not json", "[]", "{}", #"{"signedPayload":42}"#, #"{"payload":"a.b.c"}"#])
    func rejectsABodyWithoutSignedPayload(body: String) throws {
        do {
            _ = try TestPKI.shared.verifier().verifyNotification(body: Array(body.utf8))
            Issue.record("the body \(body) was accepted")
        } catch {
            #expect(error.status == .invalidJWTFormat)
            #expect(error.message.contains("signedPayload") || error.message.contains("not JSON"))
        }
    }
}
