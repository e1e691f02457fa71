import LedgerAppStore
import LedgerCore
import LedgerJSON
import LedgerService
import LedgerSystem
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
        defer { pipeline.ledger.close() }
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
        defer { pipeline.ledger.close() }
        let signed = try pki.signedNotification()
        var parts = signed.split(separator: ".").map(String.init)
        parts[1] = String(parts[1].reversed())
        let result = try pipeline.ingest(body: TestPKI.body(parts.joined(separator: ".")))
        guard case .rejected(let status, _) = result else {
            Issue.record("expected a rejection, got \(result)")
            return
        }
        #expect(status == "INVALID_JWT_FORMAT" || status == "VERIFICATION_FAILURE")
        #expect(pipeline.ledger.head.seq == 0)
        let items = try pipeline.quarantine.items()
        #expect(items.count == 1)
        #expect(items.first?.status == status.rawValue)
    }

    @Test func rejectsAnotherEnvironment() throws {
        let pipeline = try pipeline()
        defer { pipeline.ledger.close() }
        let body = TestPKI.body(try pki.signedNotification(environment: .production))
        guard case .rejected(let status, _) = try pipeline.ingest(body: body) else {
            Issue.record("a production notification was accepted into a sandbox ledger")
            return
        }
        #expect(status == "INVALID_ENVIRONMENT")
        #expect(pipeline.ledger.head.seq == 0)
    }

    @Test func keepsTheSignedOriginalAsEvidence() throws {
        let pipeline = try pipeline()
        defer { pipeline.ledger.close() }
        let signed = try pki.signedNotification(type: "DID_RENEW")
        _ = try pipeline.ingest(body: TestPKI.body(signed))
        let entry = try pipeline.ledger.entry(seq: 1)
        let sha = try #require(entry.record.evidence)
        #expect(try pipeline.ledger.evidence(sha) == Array(signed.utf8))
    }

    @Test func batchesOverlappingVerificationGiveWhatOneBatchAtATimeGives() throws {
        // Ten distinct notifications, a retry of each in the next batch and in the same batch, and a forgery.
        let bodies = try (1...10).map { number in
            TestPKI.body(try pki.signedNotification(uuid: TestPKI.Payloads.uuid(number)))
        }
        let forged = TestPKI.body(try pki.signedNotification(bundleId: "com.example.other"))
        let batches = [
            Array(bodies[0..<4]), Array(bodies[2..<7]) + [forged], [bodies[9], bodies[9], bodies[7], bodies[8]],
        ]
        let pipeline = try pipeline()
        defer { pipeline.ledger.close() }
        var reported: [[IngestResult]] = []
        try pipeline.ingest(batches: batches, threads: 3) { reported.append($0) }

        let expected: [[IngestResult]] = [
            [.appended(seq: 1), .appended(seq: 2), .appended(seq: 3), .appended(seq: 4)],
            [
                .duplicate(seq: 3), .duplicate(seq: 4), .appended(seq: 5), .appended(seq: 6), .appended(seq: 7),
                .rejected(status: "INVALID_APP_IDENTIFIER", message: ""),
            ],
            [.appended(seq: 8), .duplicate(seq: 8), .appended(seq: 9), .appended(seq: 10)],
        ]
        #expect(reported.count == expected.count)
        for (got, want) in zip(reported, expected) {
            #expect(got.map(Self.withoutMessage) == want)
        }
        #expect(pipeline.ledger.head.seq == 10)
        #expect(try pipeline.quarantine.items().count == 1)
    }

    /// Webhook connections reject concurrently: each rejection must be kept whole, none overwriting another.
    @Test func concurrentRejectionsAreEachKeptWhole() async throws {
        let quarantine = Quarantine(dataDirectory: directory.path)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<25 {
                        try quarantine.keep(
                            body: Array("{\"signedPayload\":\"\(task)-\(index)\"}".utf8), status: "INVALID_JWT_FORMAT",
                            message: "rejection \(task)-\(index)", at: Instant(milliseconds: 0))
                    }
                }
            }
            try await group.waitForAll()
        }
        let items = try quarantine.items()
        #expect(items.count == 200)
        #expect(Set(items.map(\.message)).count == 200)
    }

    @Test func bytesThatAreNotUTF8AreKeptExactlyAndUnreadableLinesAreCounted() throws {
        let quarantine = Quarantine(dataDirectory: directory.path)
        let body: [UInt8] = [0xFF, 0xFE] + Array("garbage".utf8)
        try quarantine.keep(body: body, status: "INVALID_JWT_FORMAT", message: "not JSON", at: Instant(milliseconds: 0))
        try quarantine.keep(
            body: Array("{}".utf8), status: "INVALID_JWT_FORMAT", message: "{}", at: .init(milliseconds: 1))
        var file = try #require(try PosixFileSystem().readFile(directory.path + "/quarantine/rejected.jsonl"))
        file += Array("garbage line\n{\"at\":".utf8)
        try PosixFileSystem().writeFileDurably(directory.path + "/quarantine/rejected.jsonl", file)
        let (items, unreadable) = try quarantine.read()
        #expect(unreadable == 2)
        #expect(items.count == 2)
        #expect(items[0].bodyBase64.flatMap { (text: String) in Base64.decode(text) } == body)
        #expect(items[0].body.hasSuffix("garbage"))
        #expect(items[1].bodyBase64 == nil, "valid UTF-8 is exact in body")
        #expect(items[1].body == "{}")
    }

    @Test func aBatchOfNothingCommitsNothing() throws {
        let pipeline = try pipeline()
        defer { pipeline.ledger.close() }
        var calls = 0
        try pipeline.ingest(batches: [[[UInt8]]](), threads: 2) { _ in calls += 1 }
        #expect(calls == 0)
        #expect(pipeline.ledger.head.seq == 0)
    }

    /// A result with a rejection's message left out, to compare statuses only.
    static func withoutMessage(_ result: IngestResult) -> IngestResult {
        if case .rejected(let status, _) = result { return .rejected(status: status, message: "") }
        return result
    }
}
