import LedgerHTTP
import LedgerJSON
import LedgerSystem
import LedgerTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `ledger serve --consumption auto` against the fake App Store Server API: a CONSUMPTION_REQUEST the webhook
/// takes is answered once with Send Consumption Information, from the ledger's facts, and a restart neither
/// forgets a pending answer nor sends one twice.
@Suite struct ServeConsumptionTests {
    typealias Space = ReconcileFromAPITests.APIWorkspace

    /// A webhook body: a notification of `type` about transaction `transactionId` of subscription `otid`,
    /// signed `age` ms ago; `trial` makes its transaction a free trial (an introductory offer at price 0).
    static func body(
        _ type: String, uuid: Int, transactionId: String, otid: String = "5000000000000001", age: Int64 = 0,
        trial: Bool = false
    ) throws -> [UInt8] {
        let pki = TestPKI.shared
        let now = SystemClock.wallMilliseconds() - age
        var transaction = TestPKI.Payloads.transaction(
            originalTransactionId: otid, transactionId: transactionId, purchaseDate: now - 86_400_000,
            expiresDate: now + 29 * 86_400_000, signedDate: now)
        if trial, case .object(var object) = transaction {
            object["offerType"] = 1
            object["offerDiscountType"] = "FREE_TRIAL"
            object["price"] = 0
            transaction = .object(object)
        }
        var data = TestPKI.Payloads.notificationData(
            signedTransactionInfo: try pki.sign(transaction),
            signedRenewalInfo: try pki.sign(TestPKI.Payloads.renewalInfo(originalTransactionId: otid, signedDate: now)))
        if type == "CONSUMPTION_REQUEST", case .object(var object) = data {
            object["consumptionRequestReason"] = "UNSATISFIED_WITH_PURCHASE"
            data = .object(object)
        }
        let notification = TestPKI.Payloads.notification(
            type: type, uuid: TestPKI.Payloads.uuid(900 + uuid), signedDate: now, data: data)
        return TestPKI.body(try pki.sign(notification))
    }

    /// `serve --consumption auto` on the workspace, with the key in the environment.
    static func serve(
        _ binary: String, _ space: Space, consent: String = "yes", url: String? = nil, output: String
    ) throws -> ServeProcess {
        let flags =
            ["serve", "--data", space.workspace.data, "--port", "0", "--consumption", "auto"]
            + ["--consumption-consent", consent, "--api-base-url", url ?? space.url] + space.workspace.verifyFlags
        let environment = [
            "LEDGER_APPSTORE_KEY_FILE": space.keyFile, "LEDGER_APPSTORE_KEY_ID": ReconcileFromAPITests.keyId,
            "LEDGER_APPSTORE_ISSUER_ID": ReconcileFromAPITests.issuerId,
        ]
        mkdir(output, 0o700)
        return try ServeProcess(binary, flags, environment: environment, outputIn: output)
    }

    /// POSTs a webhook body; its status.
    static func deliver(_ port: UInt16, _ body: [UInt8]) throws -> Int {
        let client = HTTPClient(port: port, timeout: .seconds(10))
        defer { client.close() }
        return try client.send(.post, "/webhooks/apple", body: body).status.code
    }

    /// Waits up to five seconds for `condition`.
    static func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<250 {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    @Test(.enabled(if: ServeProcess.binary != nil))
    func answersOnceFromTheLedgersFactsRetryingA5xxAndNeverTwiceAfterARestart() throws {
        let binary = try #require(ServeProcess.binary)
        let space = try Space(serving: [])
        defer { space.fake.stop() }
        // Apple's first answer is a 503: the client retries after its first backoff step.
        space.fake.schedule(.serverError(503), atRequest: 1)
        let first = try Self.serve(binary, space, output: space.workspace.directory.path + "/first")
        let port = try #require(first.waitUntilListening(), "serve did not start: \(first.errors)")
        #expect(
            try Self.deliver(port, Self.body("SUBSCRIBED", uuid: 1, transactionId: "5000000000000001", trial: true))
                == 200)
        #expect(try Self.deliver(port, Self.body("DID_RENEW", uuid: 2, transactionId: "5000000000000002")) == 200)
        #expect(
            try Self.deliver(port, Self.body("CONSUMPTION_REQUEST", uuid: 3, transactionId: "5000000000000002")) == 200)
        #expect(Self.eventually { space.fake.changes.count == 1 }, "\(first.errors)")
        let change = try #require(space.fake.changes.first)
        #expect(change.path == "/inApps/v2/transactions/consumption/5000000000000002")
        // The subscription began with a free trial; the transaction is in the ledger, verified: delivered.
        #expect(
            change.body
                == .object(["customerConsented": true, "deliveryStatus": "DELIVERED", "sampleContentProvided": true]))
        #expect(space.fake.statuses == [503, 202])
        #expect(Self.eventually { first.errors.contains("consumption: answered the CONSUMPTION_REQUEST ") })
        let metrics = ServeReconcileTests.get(port, "/metrics") ?? ""
        #expect(metrics.contains("ledger_consumption_answers_total{outcome=\"sent\"} 1"), "\(metrics)")
        #expect(metrics.contains("ledger_consumption_pending 0"), "\(metrics)")
        #expect(first.stop() == 0)
        let state = try JSONValue.parse(ServeProcess.read(space.workspace.data + "/consumption-answers"))
        #expect(state == .object(["scanned": 3, "pending": .array([])]))

        // Restarted: the answered request is not sent again; a new one is answered.
        let again = try Self.serve(binary, space, output: space.workspace.directory.path + "/again")
        let portAgain = try #require(again.waitUntilListening(), "serve did not start: \(again.errors)")
        #expect(
            try Self.deliver(portAgain, Self.body("CONSUMPTION_REQUEST", uuid: 4, transactionId: "5000000000000001"))
                == 200)
        #expect(Self.eventually { space.fake.changes.count >= 2 }, "\(again.errors)")
        #expect(again.stop() == 0)
        #expect(
            space.fake.changes.map(\.path) == [
                "/inApps/v2/transactions/consumption/5000000000000002",
                "/inApps/v2/transactions/consumption/5000000000000001",
            ])
        #expect(!(first.errors + again.errors).contains("BEGIN PRIVATE KEY"))
    }

    @Test(.enabled(if: ServeProcess.binary != nil))
    func aPendingAnswerSurvivesARestartWhileAppleIsUnreachable() throws {
        let binary = try #require(ServeProcess.binary)
        let space = try Space(serving: [])
        defer { space.fake.stop() }
        let down = FakeAppStoreAPI(
            publicKey: ReconcileFromAPITests.key.publicKey, keyId: ReconcileFromAPITests.keyId,
            issuerId: ReconcileFromAPITests.issuerId)
        let unreachable = try down.start()
        down.stop()
        let first = try Self.serve(binary, space, url: unreachable, output: space.workspace.directory.path + "/first")
        let port = try #require(first.waitUntilListening(), "serve did not start: \(first.errors)")
        #expect(
            try Self.deliver(port, Self.body("CONSUMPTION_REQUEST", uuid: 1, transactionId: "5000000000000003")) == 200)
        let path = space.workspace.data + "/consumption-answers"
        #expect(Self.eventually { ServeProcess.read(path).contains("\"pending\":[1]") }, "\(first.errors)")
        // SIGTERM cuts the client's retry pauses short: the send fails and stays pending, on disk.
        #expect(first.stop() == 0)
        #expect(first.errors.contains("error: consumption: the CONSUMPTION_REQUEST "), "\(first.errors)")
        #expect(first.errors.contains("the webhook keeps serving"))
        #expect(try JSONValue.parse(ServeProcess.read(path)) == .object(["scanned": 1, "pending": .array([1])]))
        #expect(space.fake.changes.isEmpty)

        // SIGKILLed while it retries: the request is still pending on disk.
        let killed = try Self.serve(binary, space, url: unreachable, output: space.workspace.directory.path + "/kill")
        _ = try #require(killed.waitUntilListening(), "serve did not start: \(killed.errors)")
        usleep(700_000)  // its first send failed at once (connection refused); it is in the client's backoff
        kill(killed.pid, SIGKILL)
        _ = killed.stop()
        #expect(try JSONValue.parse(ServeProcess.read(path)) == .object(["scanned": 1, "pending": .array([1])]))

        let again = try Self.serve(binary, space, output: space.workspace.directory.path + "/again")
        _ = try #require(again.waitUntilListening(), "serve did not start: \(again.errors)")
        #expect(Self.eventually { space.fake.changes.count == 1 }, "\(again.errors)")
        #expect(Self.eventually { ServeProcess.read(path).contains("\"pending\":[]") })
        #expect(again.stop() == 0)
        #expect(space.fake.changes.map(\.path) == ["/inApps/v2/transactions/consumption/5000000000000003"])
    }

    @Test(.enabled(if: ServeProcess.binary != nil))
    func withoutConsentOrPastTwelveHoursNothingIsSent() throws {
        let binary = try #require(ServeProcess.binary)
        let space = try Space(serving: [])
        defer { space.fake.stop() }
        let serve = try Self.serve(binary, space, consent: "no", output: space.workspace.directory.path + "/no")
        let port = try #require(serve.waitUntilListening(), "serve did not start: \(serve.errors)")
        #expect(
            try Self.deliver(port, Self.body("CONSUMPTION_REQUEST", uuid: 1, transactionId: "5000000000000004")) == 200)
        #expect(Self.eventually { serve.errors.contains("not answered: --consumption-consent no") }, "\(serve.errors)")
        let metrics = ServeReconcileTests.get(port, "/metrics") ?? ""
        #expect(metrics.contains("ledger_consumption_answers_total{outcome=\"no_consent\"} 1"), "\(metrics)")
        #expect(serve.stop() == 0)
        #expect(space.fake.requestCount == 0, "Apple takes nothing without consent: nothing was sent")

        let late = try Self.serve(binary, space, output: space.workspace.directory.path + "/late")
        let portLate = try #require(late.waitUntilListening(), "serve did not start: \(late.errors)")
        let thirteenHours: Int64 = 13 * 3_600_000
        #expect(
            try Self.deliver(
                portLate,
                Self.body("CONSUMPTION_REQUEST", uuid: 2, transactionId: "5000000000000005", age: thirteenHours))
                == 200)
        #expect(Self.eventually { late.errors.contains("is past Apple's 12 hours") }, "\(late.errors)")
        #expect(late.stop() == 0)
        #expect(space.fake.requestCount == 0)
    }

    @Test func badConsumptionFlagsAreUsageErrors() throws {
        let space = try Space(serving: [])
        defer { space.fake.stop() }
        let base = ["serve", "--data", space.workspace.data, "--port", "0"] + space.workspace.verifyFlags
        let key =
            ["--key-file", space.keyFile, "--key-id", ReconcileFromAPITests.keyId]
            + ["--issuer-id", ReconcileFromAPITests.issuerId]
        for (extra, message) in [
            (["--consumption", "auto"] + key, "--consumption auto needs --consumption-consent yes|no"),
            (["--consumption", "auto", "--consumption-consent", "maybe"] + key, "'maybe' is not yes or no"),
            (["--consumption", "sometimes"], "--consumption 'sometimes' is not auto or off"),
            (["--consumption-consent", "yes"], "--consumption-consent is only for --consumption auto"),
            (["--consumption", "auto", "--consumption-consent", "yes"], "missing --key-file"),
        ] {
            let result = ledger(base + extra)
            #expect(result.code == 64, "\(extra): \(result.err)")
            #expect(result.err.contains(message), "\(result.err)")
        }
        #expect(access(space.workspace.data, F_OK) != 0, "nothing was created")
    }
}
