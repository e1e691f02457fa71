import LedgerAppStore
import LedgerCore
import LedgerJSON
import LedgerService
import LedgerTesting
import Testing

@Suite struct IngestPipelineTests {
    let directory = TemporaryDirectory()
    let pki = TestPKI.shared

    func pipeline() throws -> IngestPipeline {
        let ledger = try Ledger.openWriter(at: directory.path, environment: .sandbox)
        return IngestPipeline(
            ledger: ledger, verifier: try pki.verifier(), quarantine: Quarantine(dataDirectory: directory.path))
    }

    @Test func appendsOnceThenRecognisesTheDuplicate() throws {
        let pipeline = try pipeline()
        defer { pipeline.ledger.log.close() }
        let body = TestPKI.body(try pki.signedNotification(type: "SUBSCRIBED", subtype: "INITIAL_BUY"))
        #expect(try pipeline.ingest(body: body) == .appended(seq: 1))
        #expect(try pipeline.ingest(body: body) == .duplicate(seq: 1))
        let at = Instant(milliseconds: TestPKI.Payloads.signedDate + 86_400_000)
        let state = try pipeline.ledger.state(of: .user(42), at: at, knownAt: nil)
        #expect(state.deviceLimit == 3)
        #expect(state.status == .active)
        #expect(state.subscriptions.map(\.productId) == ["com.visla.gps.monthly_3"])
    }

    @Test func rejectsTamperedPayloadIntoTheQuarantineAndAppendsNothing() throws {
        let pipeline = try pipeline()
        defer { pipeline.ledger.log.close() }
        let signed = try pki.signedNotification()
        var parts = signed.split(separator: ".").map(String.init)
        parts[1] = String(parts[1].reversed())
        let result = try pipeline.ingest(body: TestPKI.body(parts.joined(separator: ".")))
        guard case .rejected(let status, _) = result else {
            Issue.record("expected a rejection, got \(result)")
            return
        }
        #expect(status == "INVALID_JWT_FORMAT" || status == "VERIFICATION_FAILURE")
        #expect(pipeline.ledger.log.head.seq == 0)
        let items = try pipeline.quarantine.items()
        #expect(items.count == 1)
        #expect(items.first?.status == status)
    }

    @Test func rejectsAnotherEnvironment() throws {
        let pipeline = try pipeline()
        defer { pipeline.ledger.log.close() }
        let body = TestPKI.body(try pki.signedNotification(environment: .production))
        guard case .rejected(let status, _) = try pipeline.ingest(body: body) else {
            Issue.record("a production notification was accepted into a sandbox ledger")
            return
        }
        #expect(status == "INVALID_ENVIRONMENT")
        #expect(pipeline.ledger.log.head.seq == 0)
    }

    @Test func keepsTheSignedOriginalAsEvidence() throws {
        let pipeline = try pipeline()
        defer { pipeline.ledger.log.close() }
        let signed = try pki.signedNotification(type: "DID_RENEW")
        _ = try pipeline.ingest(body: TestPKI.body(signed))
        let entry = try pipeline.ledger.entry(seq: 1)
        let sha = try #require(entry.record.evidence)
        #expect(try pipeline.ledger.log.evidence(sha) == Array(signed.utf8))
    }
}
