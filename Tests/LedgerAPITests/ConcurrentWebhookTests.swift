import LedgerHTTP
import LedgerJSON
import Testing

/// Apple retries a notification until it gets a 200, so the same body can arrive on several connections at
/// once: the ledger must keep exactly one record and tell every sender it is safe to stop.
@Suite struct ConcurrentWebhookTests {
    /// What one sender saw.
    struct Answer: Sendable {
        var status: Int
        var seq: Int64?
        var duplicate: Bool?
    }

    static func answer(_ response: HTTPResponse) -> Answer {
        let json = try? JSONValue.parse(response.body)
        return Answer(status: response.status.code, seq: json?["seq"]?.int64, duplicate: json?["duplicate"]?.bool)
    }

    /// Checks one round: eight 200s naming the same seq, one of them the append and seven duplicates.
    static func expectOneRecord(_ answers: [Answer], round: Int) {
        #expect(answers.count == 8)
        #expect(answers.allSatisfy { $0.status == 200 }, "round \(round): \(answers.map(\.status))")
        #expect(Set(answers.compactMap(\.seq)) == [Int64(round)], "round \(round): every sender names one seq")
        #expect(answers.filter { $0.duplicate == false }.count == 1, "round \(round): exactly one append")
    }

    @Test func eightSendersInProcessMakeOneRecord() throws {
        let harness = try FaultyLedgerHarness()
        let rounds = 12
        for round in 1...rounds {
            let body = try harness.notification(round)
            let answers = Collected<Answer>()
            let application = harness.application
            concurrently(8) { _ in
                let request = try! HTTPRequest(method: .post, target: "/webhooks/apple", body: body)
                answers.append(Self.answer(application.respond(to: request)))
            }
            Self.expectOneRecord(answers.all, round: round)
        }
        #expect(harness.head == UInt64(rounds))
        #expect(try harness.keysOnDisk() == (1...rounds).map(FaultyLedgerHarness.uuid))
        #expect(try harness.verifies())
    }

    @Test func eightClientsOverLoopbackMakeOneRecord() throws {
        let harness = try FaultyLedgerHarness()
        let port = try harness.serve()
        let rounds = 12
        let clients = (0..<8).map { _ in ClientBox(HTTPClient(port: port, timeout: .seconds(10))) }
        for round in 1...rounds {
            let body = try harness.notification(round)
            let answers = Collected<Answer>()
            concurrently(8) { index in
                do {
                    let response = try clients[index].client.send(
                        .post, "/webhooks/apple", headers: ["Content-Type": "application/json"], body: body)
                    answers.append(Self.answer(response))
                } catch {
                    answers.append(Answer(status: -1))
                }
            }
            Self.expectOneRecord(answers.all, round: round)
        }
        #expect(harness.head == UInt64(rounds))
        #expect(try harness.keysOnDisk() == (1...rounds).map(FaultyLedgerHarness.uuid))
        let history = try harness.get("/v1/users/42/history")
        let uuids = history.json?.array?.compactMap { $0["notificationUUID"]?.string } ?? []
        #expect(uuids.sorted() == (1...rounds).map(FaultyLedgerHarness.uuid).sorted())
    }
}

/// Hands a client to exactly one thread (each index is used by one thread at a time).
final class ClientBox: @unchecked Sendable {
    // Unchecked: `concurrently` gives each index to a single thread, and rounds run one after another.
    let client: HTTPClient
    init(_ client: HTTPClient) { self.client = client }
}
