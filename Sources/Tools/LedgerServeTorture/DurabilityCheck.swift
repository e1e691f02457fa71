import LedgerCore
import LedgerHTTP
import LedgerJSON
import LedgerService
import LedgerSystem
import LedgerTesting

/// After the last crash and restart: every acknowledged notification is in the log at the seq its 200
/// named, with its evidence, in its subject's history over HTTP, and every subject's entitlement answer
/// equals a fresh `ledger state` computed from the same data directory.
struct DurabilityCheck {
    var port: UInt16
    var dataDirectory: String
    /// The `ledger` executable, for spot checks through the CLI (nil: skip them).
    var ledgerExecutable: String?
    /// How many users the CLI spot check covers.
    var cliSamples = 5

    /// What the acknowledged records are about.
    struct Subjects {
        var users: [Int64: Set<String>] = [:]
        var subscriptions: [String: Set<String>] = [:]
        var count: Int { users.count + subscriptions.count }
    }

    func run(_ bodies: [[UInt8]], acks: [Acknowledgement]) throws(TortureError) -> String {
        let ledger: Ledger
        do {
            ledger = try Ledger.openReader(at: dataDirectory)
        } catch {
            throw TortureError("cannot open \(dataDirectory): \(error.message)")
        }
        defer { ledger.close() }
        let client = HTTPClient(port: port, timeout: .seconds(30))

        let (subjects, distinct) = try acknowledgedRecords(bodies, acks: acks, ledger: ledger)
        let head = ledger.head.seq
        let health = try get(client, "/healthz")
        guard health["head"]?.int64 == Int64(head) else {
            throw TortureError.finding("/healthz says head \(health["head"] ?? .null), the log's head is \(head)")
        }
        try checkHistories(subjects, client: client)
        let compared = try compareEntitlements(subjects, at: instants(ledger), ledger: ledger, client: client)
        let cliChecked = try compareWithCLI(subjects, client: client)
        return "ok: \(acks.count) acknowledgements (\(distinct) distinct notifications) all in the log at their seqs "
            + "with their evidence (head \(head)); \(subjects.count) subjects' histories list them; \(compared) "
            + "entitlement answers equal a fresh ledger state (\(cliChecked) also through `ledger state`)"
    }

    /// Every acknowledgement names a record that holds that very notification (the SHA-256 of its signed
    /// payload is the record's evidence, or, for a re-signed copy, its notificationUUID is the record's key).
    private func acknowledgedRecords(_ bodies: [[UInt8]], acks: [Acknowledgement], ledger: Ledger) throws(TortureError)
        -> (Subjects, Int)
    {
        let head = ledger.head.seq
        var subjects = Subjects()
        var seqs = Set<UInt64>()
        for ack in acks {
            guard ack.line < bodies.count else {
                throw TortureError.finding("an acknowledgement names body \(ack.line), beyond the file")
            }
            guard ack.seq >= 1 && ack.seq <= head else {
                throw TortureError.finding(
                    "body \(ack.line) was acknowledged as seq \(ack.seq), but the log ends at \(head): it is lost")
            }
            let record: LedgerRecord
            do {
                record = try ledger.entry(seq: ack.seq).record
            } catch {
                throw TortureError.finding("record \(ack.seq), acknowledged for body \(ack.line): \(error.message)")
            }
            let digest = try NotificationFile.evidenceDigest(of: bodies[ack.line])
            if record.evidence != digest {
                let uuid = try NotificationFile.uuid(of: bodies[ack.line])
                guard record.idempotencyKey == uuid else {
                    throw TortureError.finding(
                        "body \(ack.line) (\(uuid)) was acknowledged as seq \(ack.seq), but that record is "
                            + "\(record.idempotencyKey)")
                }
            }
            if let evidence = record.evidence, seqs.insert(ack.seq).inserted {
                guard (try? ledger.evidence(evidence)) != nil else {
                    throw TortureError.finding("the evidence of record \(ack.seq) is missing")
                }
            }
            if let user = record.subject.userId {
                subjects.users[user, default: []].insert(record.idempotencyKey)
            } else if let otid = record.subject.originalTransactionId {
                subjects.subscriptions[otid, default: []].insert(record.idempotencyKey)
            }
        }
        return (subjects, seqs.count)
    }

    /// Each acknowledged notification is in its subject's history as the server answers it.
    private func checkHistories(_ subjects: Subjects, client: HTTPClient) throws(TortureError) {
        let targets =
            subjects.users.map { ("/v1/users/\($0.key)/history", $0.value) }
            + subjects.subscriptions.map { ("/v1/subscriptions/\($0.key)/history", $0.value) }
        for (target, uuids) in targets {
            let listed = Set(try get(client, target).array?.compactMap { $0["notificationUUID"]?.string } ?? [])
            if let missing = uuids.subtracting(listed).first {
                throw TortureError.finding("notification \(missing) is not in GET \(target)")
            }
        }
    }

    /// Each subject's entitlement, now and at the median signedDate, equals a fresh state of the data.
    private func compareEntitlements(_ subjects: Subjects, at instants: [Int64], ledger: Ledger, client: HTTPClient)
        throws(TortureError) -> Int
    {
        var compared = 0
        let queries: [(SubjectQuery, String)] =
            subjects.users.keys.sorted().map { (.user($0), "/v1/users/\($0)/entitlement") }
            + subjects.subscriptions.keys.sorted().map {
                (.originalTransaction($0), "/v1/subscriptions/\($0)/entitlement")
            }
        for (query, path) in queries {
            for at in instants {
                let answer = try get(client, "\(path)?at=\(at)")
                let fresh: JSONValue
                do {
                    fresh = try ledger.state(of: query, at: Instant(milliseconds: at), knownAt: nil).json
                } catch {
                    throw TortureError("ledger state of \(query): \(error.message)")
                }
                guard normalized(fresh) == answer else {
                    throw TortureError.finding(
                        "GET \(path)?at=\(at) answered \(answer.serialized()) but a fresh ledger state is "
                            + fresh.serialized())
                }
                compared += 1
            }
        }
        return compared
    }

    /// A few users' entitlement through `ledger state --json`, as an operator would ask.
    private func compareWithCLI(_ subjects: Subjects, client: HTTPClient) throws(TortureError) -> Int {
        guard let ledgerExecutable else { return 0 }
        var checked = 0
        let at = SystemClock.wallMilliseconds()
        for user in subjects.users.keys.sorted().prefix(cliSamples) {
            let (status, output) = try ChildProcess.run(
                ledgerExecutable, ["state", "--data", dataDirectory, "--user", "\(user)", "--at", "\(at)", "--json"])
            let answer = try get(client, "/v1/users/\(user)/entitlement?at=\(at)")
            guard status == 0, let printed = try? JSONValue.parse(output), printed == answer else {
                throw TortureError.finding(
                    "`ledger state --user \(user) --at \(at) --json` (exit \(status)) printed "
                        + "\(String(decoding: output, as: UTF8.self)) but the server answered \(answer.serialized())")
            }
            checked += 1
        }
        return checked
    }

    /// Now, and the signedDate of the log's middle record (inside the traffic's history).
    private func instants(_ ledger: Ledger) -> [Int64] {
        let middle = try? ledger.entry(seq: max(1, ledger.head.seq / 2)).record.notification?.signedDate
        return [SystemClock.wallMilliseconds()] + (middle.map { [$0.milliseconds] } ?? [])
    }

    private func get(_ client: HTTPClient, _ target: String) throws(TortureError) -> JSONValue {
        let response: HTTPResponse
        do {
            response = try client.send(.get, target)
        } catch {
            throw TortureError("GET \(target): \(error)")
        }
        guard response.status.code == 200, let json = try? JSONValue.parse(response.body) else {
            throw TortureError.finding("GET \(target) answered \(response.status.code): \(response.bodyText)")
        }
        return json
    }

    /// The value as it reads after a trip through JSON text.
    private func normalized(_ value: JSONValue) -> JSONValue {
        (try? JSONValue.parse(value.serializedBytes())) ?? value
    }
}
