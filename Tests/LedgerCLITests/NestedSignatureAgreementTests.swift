import LedgerAPI
import LedgerAppStore
import LedgerCore
import LedgerHTTP
import LedgerJSON
import LedgerService
import LedgerTesting
import Testing

/// A corpus of notifications whose envelope is validly signed but whose nested `signedTransactionInfo` or
/// `signedRenewalInfo` does not verify: `ingest`, the webhook, `reconcile` and `audit` agree on every line — all
/// refuse it, and nothing is appended.
@Suite struct NestedSignatureAgreementTests {
    let workspace = Workspace()
    static let pki = TestPKI.shared

    /// One tampered nested JWS: which field it sits in, and its text.
    struct Tampered {
        var name: String
        var field: String
        var jws: String
    }

    static func corpus() throws -> [Tampered] {
        let transaction = try pki.sign(TestPKI.Payloads.transaction())
        let renewal = try pki.sign(TestPKI.Payloads.renewalInfo())
        let impostor = try TestPKI()
        return [
            Tampered(
                name: "transaction signature bit", field: "signedTransactionInfo",
                jws: flippingSignatureBit(transaction)),
            Tampered(
                name: "renewal signature bit", field: "signedRenewalInfo", jws: flippingSignatureBit(renewal)),
            Tampered(
                name: "transaction payload altered", field: "signedTransactionInfo",
                jws: try replacingPayloadField(transaction, "productId", with: "com.visla.gps.annual_10")),
            Tampered(
                name: "renewal payload altered", field: "signedRenewalInfo",
                jws: try replacingPayloadField(renewal, "autoRenewProductId", with: "com.visla.gps.annual_10")),
            Tampered(
                name: "transaction signed by another chain", field: "signedTransactionInfo",
                jws: try impostor.sign(TestPKI.Payloads.transaction())),
        ]
    }

    /// A notification with a good envelope around `tampered` (the other nested field good), number `index`.
    static func notification(_ tampered: Tampered, index: Int) throws -> String {
        let good = (
            transaction: try pki.sign(TestPKI.Payloads.transaction()),
            renewal: try pki.sign(TestPKI.Payloads.renewalInfo())
        )
        let data = TestPKI.Payloads.notificationData(
            signedTransactionInfo: tampered.field == "signedTransactionInfo" ? tampered.jws : good.transaction,
            signedRenewalInfo: tampered.field == "signedRenewalInfo" ? tampered.jws : good.renewal)
        return try pki.sign(
            TestPKI.Payloads.notification(type: "DID_RENEW", uuid: TestPKI.Payloads.uuid(900 + index), data: data))
    }

    var head: JSONValue? { ledger(["digest", "--data", workspace.data, "--json"]).json }

    @Test func ingestTheWebhookReconcileAndAuditAllRefuseEveryLine() throws {
        // A ledger with one good record, so that every refusal below leaves a head to compare.
        let good = workspace.file(
            "good.jsonl", [String(decoding: TestPKI.body(try Self.pki.signedNotification()), as: UTF8.self)])
        #expect(ledger(["ingest", "--data", workspace.data] + workspace.verifyFlags + [good]).code == 0)
        let before = head
        #expect(before?["seq"] == 1)

        for (index, tampered) in try Self.corpus().enumerated() {
            let signed = try Self.notification(tampered, index: index)
            let body = TestPKI.body(signed)

            // ingest
            let line = workspace.file("line\(index).jsonl", [String(decoding: body, as: UTF8.self)])
            let ingest = ledger(["ingest", "--data", workspace.data, "--json"] + workspace.verifyFlags + [line])
            #expect(ingest.code == 1, "ingest, \(tampered.name)")
            #expect(ingest.json?["rejected"] == 1 && ingest.json?["accepted"] == 0, "ingest, \(tampered.name)")
            #expect(head == before, "ingest, \(tampered.name)")

            // the webhook
            let status = try webhookStatus(body)
            #expect(status.code == 422, "webhook, \(tampered.name)")
            #expect(status.message.contains("data.\(tampered.field)"), "webhook, \(tampered.name): \(status.message)")
            #expect(head == before, "webhook, \(tampered.name)")

            // reconcile: the same nested JWS as an App Store Server API response carries it
            let document = workspace.file("doc\(index).json", [try Self.apiResponse(carrying: tampered).serialized()])
            let reconcile = ledger(
                ["reconcile", "--data", workspace.data, "--json"] + workspace.verifyFlags + [document])
            #expect(reconcile.code == 1, "reconcile, \(tampered.name): \(reconcile.out) \(reconcile.err)")
            #expect(reconcile.json?["appended"] == 0, "reconcile, \(tampered.name)")
            #expect(head == before, "reconcile, \(tampered.name)")
        }
    }

    @Test func auditRefusesEveryLineThatReachedTheLogUnverified() throws {
        // As if an older build had let them in: each record appended straight from its unverified payloads.
        let ledgerHandle = try Ledger.openWriter(at: workspace.data, environment: .sandbox)
        let corpus = try Self.corpus()
        for (index, tampered) in corpus.enumerated() {
            let signed = try Self.notification(tampered, index: index)
            let verified = VerifiedNotification(
                signedPayload: signed, payload: try Self.unverifiedPayload(signed),
                transaction: try Self.nested(signed, "signedTransactionInfo"),
                renewalInfo: try Self.nested(signed, "signedRenewalInfo"))
            let decoded = try DecodedNotification(verified)
            let record = try LedgerRecord(
                notification: decoded.notification, transaction: decoded.transaction, renewal: decoded.renewal,
                evidence: verified.evidence.sha256)
            _ = try ledgerHandle.append([(record, verified.evidence)])
        }
        ledgerHandle.close()

        let audit = ledger(
            ["audit", "--data", workspace.data, "--original-transaction-id", "2000000000000001", "--json"]
                + workspace.verifyFlags)
        #expect(audit.code == 1, "\(audit.err)")
        #expect(audit.json?["failures"] == .integer(Int64(corpus.count)), "\(audit.out)")
        #expect(audit.json?["verified"] == 0, "\(audit.out)")
    }

    // MARK: - The webhook, in-process

    func webhookStatus(_ body: [UInt8]) throws -> (code: Int, message: String) {
        let ledgerHandle = try Ledger.openWriter(at: workspace.data, environment: .sandbox)
        defer { ledgerHandle.close() }
        let verifier = try Self.pki.verifier()
        let pipeline = IngestPipeline(
            ledger: ledgerHandle, verifier: verifier, quarantine: Quarantine(dataDirectory: workspace.data))
        let api = LedgerAPI(
            pipeline: pipeline, readToken: nil, adminToken: nil,
            metrics: LedgerMetrics(ledger: ledgerHandle, verifier: verifier))
        let response = api.application().respond(
            to: try HTTPRequest(method: .post, target: "/webhooks/apple", headers: HTTPHeaders(), body: body))
        let json = try? JSONValue.parse(response.body)
        return (response.status.code, json?["error"]?["message"]?.string ?? "")
    }

    // MARK: - Building the corpus

    static func apiResponse(carrying tampered: Tampered) throws -> JSONValue {
        if tampered.field == "signedTransactionInfo" {
            return .object([
                "signedTransactions": [.string(tampered.jws)], "revision": "r1", "hasMore": false,
                "bundleId": .string(TestPKI.bundleId), "environment": "Sandbox",
            ])
        }
        let transaction = try pki.sign(TestPKI.Payloads.transaction())
        let last: JSONObject = [
            "originalTransactionId": "2000000000000001", "status": 1,
            "signedTransactionInfo": .string(transaction), "signedRenewalInfo": .string(tampered.jws),
        ]
        let group: JSONObject = ["subscriptionGroupIdentifier": "21000000", "lastTransactions": [.object(last)]]
        return .object([
            "environment": "Sandbox", "bundleId": .string(TestPKI.bundleId), "data": [.object(group)],
        ])
    }

    static func segments(_ jws: String) -> [String] {
        jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    static func flippingSignatureBit(_ jws: String) -> String {
        var parts = segments(jws)
        var signature = Base64.decodeURL(parts[2])!
        signature[10] ^= 0x01
        parts[2] = Base64.encodeURL(signature)
        return parts.joined(separator: ".")
    }

    static func replacingPayloadField(_ jws: String, _ name: String, with value: String) throws -> String {
        var parts = segments(jws)
        guard case .object(var payload) = try JSONValue.parse(Base64.decodeURL(parts[1])!) else {
            throw VerificationError(.invalidJWTFormat, "not an object")
        }
        payload[name] = .string(value)
        parts[1] = Base64.encodeURL(Array(JSONValue.object(payload).serialized().utf8))
        return parts.joined(separator: ".")
    }

    static func unverifiedPayload(_ jws: String) throws -> JSONValue {
        try JSONValue.parse(Base64.decodeURL(segments(jws)[1])!)
    }

    static func nested(_ signed: String, _ field: String) throws -> JSONValue? {
        guard let nested = try unverifiedPayload(signed)["data"]?[field]?.string else { return nil }
        return try unverifiedPayload(nested)
    }
}
