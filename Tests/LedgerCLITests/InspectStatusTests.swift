import LedgerAppStore
import LedgerAppStoreTestKit
import LedgerCore
import LedgerCrypto
import LedgerJSON
import LedgerTesting
import Testing

/// `ledger inspect` reproduces every verification outcome of the App Store boundary with exit 1 and the
/// contract's `{"valid":false,"status":…,"message":…}`.
@Suite struct InspectStatusTests {
    let workspace = Workspace()
    var pki: TestPKI { workspace.pki }

    /// A signed notification whose payload segment was swapped for another one (header and signature kept).
    func tamperedPayload() throws -> String {
        let signed = try pki.signedNotification()
        let other = try pki.signedNotification(type: "REFUND")
        var parts = signed.split(separator: ".").map(String.init)
        parts[1] = String(other.split(separator: ".")[1])
        return parts.joined(separator: ".")
    }

    func tamperedSignature() throws -> String {
        let signed = try pki.signedNotification()
        var parts = signed.split(separator: ".").map(String.init)
        var signature = Array(parts[2].utf8)
        signature[10] = signature[10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        parts[2] = String(decoding: signature, as: UTF8.self)
        return parts.joined(separator: ".")
    }

    func chain(_ options: ApplePKI.Options) throws -> String {
        try TestPKI(options).signedNotification()
    }

    func header(_ header: JSONObject) throws -> String {
        let signer = try JWSSigner(privateKey: pki.pki.leafKey, header: header)
        let transaction = try pki.sign(TestPKI.Payloads.transaction())
        let renewal = try pki.sign(TestPKI.Payloads.renewalInfo())
        let data = TestPKI.Payloads.notificationData(signedTransactionInfo: transaction, signedRenewalInfo: renewal)
        return try signer.sign(TestPKI.Payloads.notification(type: "DID_RENEW", data: data))
    }

    func inspect(_ input: String, _ flags: [String]? = nil) -> CommandResult {
        ledger(["inspect", "--json"] + (flags ?? workspace.verifyFlags) + [workspace.file("input", [input])])
    }

    func expect(_ input: String, _ status: String, flags: [String]? = nil, _ comment: Comment) {
        let result = inspect(input, flags)
        #expect(result.code == 1, comment)
        #expect(result.json?["valid"] == false, comment)
        #expect(result.json?["status"] == .string(status), comment)
        #expect(result.json?["message"]?.string?.isEmpty == false, comment)
    }

    @Test func everyRejectionHasItsAppleStatus() throws {
        let x5c = pki.pki.x5c.map { JSONValue.string(Base64.encode($0)) }
        var noLeafOID = ApplePKI.Options()
        noLeafOID.leafExtensionOIDs = ["1.2.840.113635.100.6.11.2"]
        var noIntermediateOID = ApplePKI.Options()
        noIntermediateOID.intermediateExtensionOIDs = []
        var expired = ApplePKI.Options()
        expired.leafValidity = 1_420_070_400_000...1_500_000_000_000

        expect(
            try tamperedPayload(), "INVALID_JWT_FORMAT",
            "tampered payload (Apple's Swift library: a bad signature is a format error)")
        expect(try tamperedSignature(), "INVALID_JWT_FORMAT", "tampered signature")
        expect(try TestPKI().signedNotification(), "VERIFICATION_FAILURE", "chain to an untrusted root")
        expect(try chain(noLeafOID), "VERIFICATION_FAILURE", "leaf without its OID")
        expect(try chain(noIntermediateOID), "VERIFICATION_FAILURE", "intermediate without its OID")
        expect(try chain(expired), "VERIFICATION_FAILURE", "signedDate outside the leaf's validity")
        expect(try header(["alg": "ES256", "x5c": .array(Array(x5c.prefix(2)))]), "INVALID_CHAIN_LENGTH", "x5c of 2")
        expect(try header(["alg": "ES384", "x5c": .array(x5c)]), "INVALID_JWT_FORMAT", "alg other than ES256")
        expect(try pki.signedNotification(bundleId: "com.example.other"), "INVALID_APP_IDENTIFIER", "wrong bundle")
        expect(try pki.signedNotification(environment: .production), "INVALID_ENVIRONMENT", "wrong environment")
        expect("definitely not a JWS", "INVALID_JWT_FORMAT", "not a JWS")
        expect(#"{"notificationType":"TEST"}"#, "INVALID_JWT_FORMAT", "JSON without signedPayload")
        let production = [
            "--environment", "production", "--bundle-id", TestPKI.bundleId, "--app-apple-id", "999", "--trust-root",
            workspace.root,
        ]
        expect(
            try pki.signedNotification(environment: .production), "INVALID_APP_IDENTIFIER", flags: production,
            "wrong appAppleId in production")
    }

    @Test func theValidOnesPass() throws {
        #expect(inspect(try pki.signedNotification()).code == 0)
        #expect(
            inspect(try TestPKI.sharedP256.signedNotification(), workspace.verifyFlagsFor(TestPKI.sharedP256)).code == 0
        )
        let production = [
            "--environment", "production", "--bundle-id", TestPKI.bundleId, "--app-apple-id",
            String(TestPKI.appAppleId), "--trust-root", workspace.root,
        ]
        #expect(inspect(try pki.signedNotification(environment: .production), production).code == 0)
        let body = String(decoding: TestPKI.body(try pki.signedNotification()), as: UTF8.self)
        #expect(inspect(body).code == 0, "a request body with signedPayload is accepted too")
    }
}

extension Workspace {
    /// Verify flags trusting another test PKI's root.
    func verifyFlagsFor(_ other: TestPKI) -> [String] {
        let path = directory.path + "/other-root.der"
        write(path, bytes: other.rootDER)
        return ["--environment", "sandbox", "--bundle-id", TestPKI.bundleId, "--trust-root", path]
    }
}

/// `ledger inspect` decodes a notification into the same typed models as `ledger ingest` (and the webhook,
/// which shares ingest's pipeline), so for a field of the wrong type, or one written as an exact integer, both
/// reach the same verdict and status, as Apple's JSONDecoder-based libraries do.
@Suite struct InspectDecodesAsIngestTests {
    let workspace = Workspace()

    /// A signed notification whose `key` in `part` (notification, data, transaction, renewal) is written as
    /// the raw JSON `text`, signed as written.
    func signed(_ part: String, _ key: String, _ text: String) throws -> String {
        let marker = JSONValue.string("@@raw@@")
        /// `value`, with `key` written as `text` when `value` is the part under test, signed as written.
        func sign(_ value: JSONValue, _ target: String) throws -> String {
            var object = value.object ?? JSONObject()
            if part == target { object[key] = marker }
            let json = JSONValue.object(object).serialized().replacing(marker.serialized(), with: text)
            return try workspace.pki.signer.sign(payloadBytes: Array(json.utf8))
        }
        let data = TestPKI.Payloads.notificationData(
            signedTransactionInfo: try sign(TestPKI.Payloads.transaction(), "transaction"),
            signedRenewalInfo: try sign(TestPKI.Payloads.renewalInfo(), "renewal"))
        var notification = TestPKI.Payloads.notification(type: "DID_RENEW").object ?? JSONObject()
        var dataObject = data.object ?? JSONObject()
        if part == "data" { dataObject[key] = marker }
        notification["data"] = .object(dataObject)
        return try sign(.object(notification), "notification")
    }

    func inspect(_ signed: String) -> CommandResult {
        ledger(["inspect", "--json"] + workspace.verifyFlags + [workspace.file("n.jws", [signed])])
    }

    /// Ingest's counts and the status of the quarantined line, if any.
    func ingest(_ signed: String) -> (counts: JSONValue?, status: JSONValue?) {
        let body = String(decoding: TestPKI.body(signed), as: UTF8.self)
        let result = ledger(
            ["ingest", "--data", workspace.data] + workspace.verifyFlags + [workspace.file("in", [body])])
        let quarantine = ledger(["quarantine", "--data", workspace.data, "--json"])
        return (result.json, quarantine.json?.array?.first?["status"])
    }

    @Test(arguments: [
        ("notification", "notificationUUID", "42"),
        ("notification", "version", "2"),
        ("notification", "version", "2.0"),
        ("notification", "notificationType", "1"),
        ("data", "status", "\"1\""),
        ("data", "status", "4294967297"),
        ("data", "status", "1.5"),
        ("data", "bundleVersion", "637"),
        ("data", "appAppleId", "1234567890.5"),
        ("transaction", "price", "\"11700\""),
        ("transaction", "expiresDate", "\"1774828800000\""),
        ("transaction", "quantity", "1.5"),
        ("transaction", "quantity", "4294967297"),
        ("transaction", "offerType", "1.5"),
        ("renewal", "autoRenewStatus", "\"1\""),
        ("renewal", "renewalPrice", "11700.5"),
        ("renewal", "expirationIntent", "0.5"),
    ])
    func aWronglyTypedFieldIsInvalidForInspectAsForIngest(part: String, key: String, text: String) throws {
        let signed = try signed(part, key, text)
        let inspected = inspect(signed)
        #expect(inspected.code == 1, "\(part).\(key) = \(text)")
        #expect(inspected.json?["valid"] == false)
        #expect(inspected.json?["status"] == "INVALID_JWT_FORMAT", "\(inspected.out)")
        let ingested = ingest(signed)
        #expect(ingested.counts == .object(["accepted": 0, "duplicates": 0, "rejected": 1]))
        #expect(ingested.status == "INVALID_JWT_FORMAT")
    }

    @Test(arguments: [
        ("data", "appAppleId", "1234567890.0"),
        ("data", "appAppleId", "1.23456789e9"),
        ("data", "status", "1.0"),
        ("transaction", "quantity", "1.0"),
        ("transaction", "price", "1.17e4"),
        ("transaction", "expiresDate", "1774828800000.75"),
        ("renewal", "autoRenewStatus", "1e0"),
        ("renewal", "renewalPrice", "11700.0"),
        ("notification", "unused", String(repeating: "[", count: 40) + String(repeating: "]", count: 40)),
        ("transaction", "unused", String(repeating: "{\"a\":", count: 40) + "1" + String(repeating: "}", count: 40)),
    ])
    func anIntegralNumberOrADeepUnusedFieldIsValidForInspectAsForIngest(part: String, key: String, text: String)
        throws
    {
        let signed = try signed(part, key, text)
        let inspected = inspect(signed)
        #expect(inspected.code == 0, "\(part).\(key) = \(text): \(inspected.out)")
        let ingested = ingest(signed)
        #expect(ingested.counts == .object(["accepted": 1, "duplicates": 0, "rejected": 0]))
    }

    @Test func theAppAppleIdWrittenWithAFractionMatchesInProduction() throws {
        let production = [
            "--environment", "production", "--bundle-id", TestPKI.bundleId, "--app-apple-id",
            String(TestPKI.appAppleId), "--trust-root", workspace.root,
        ]
        let pki = workspace.pki
        let transaction = try pki.sign(TestPKI.Payloads.transaction(environment: .production))
        let renewal = try pki.sign(TestPKI.Payloads.renewalInfo(environment: .production))
        let data = TestPKI.Payloads.notificationData(
            appAppleId: nil, environment: .production, signedTransactionInfo: transaction, signedRenewalInfo: renewal)
        let json = TestPKI.Payloads.notification(type: "DID_RENEW", data: data).serialized().replacing(
            "\"environment\":", with: "\"appAppleId\":1.23456789e9,\"environment\":")
        let signed = try pki.signer.sign(payloadBytes: Array(json.utf8))
        let result = ledger(["inspect", "--json"] + production + [workspace.file("n.jws", [signed])])
        #expect(result.code == 0, "\(result.out)")
    }
}
