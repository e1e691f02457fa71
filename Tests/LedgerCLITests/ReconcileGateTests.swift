import LedgerJSON
import LedgerTesting
import Testing

/// `ledger reconcile` imports only what is this ledger's: each gate refuses its input with Apple's status name on
/// stderr, exit 1, and the log's head unchanged.
@Suite struct ReconcileGateTests {
    let workspace = Workspace()

    static let production = ["--environment", "production", "--bundle-id", TestPKI.bundleId]
    static let appAppleId = ["--app-apple-id", "1234567890"]

    /// A legacy receipt with one fact; `receipt` is the members of its `receipt` object.
    func legacy(_ environment: String, receipt: String, transactionId: String = "1000000000000790") -> String {
        #"{"status":0,"environment":"\#(environment)","receipt":{\#(receipt)},"#
            + #""latest_receipt_info":[{"quantity":"1","product_id":"com.visla.gps.monthly_2","#
            + #""transaction_id":"\#(transactionId)","original_transaction_id":"\#(transactionId)","#
            + #""purchase_date_ms":"1769904000000","expires_date_ms":"1772323200000"}]}"#
    }

    /// A production ledger holding one legacy fact (a legacy receipt needs no signature), or a sandbox one
    /// holding one signed transaction; returns its head.
    func bound(production: Bool) throws -> JSONValue? {
        let result: CommandResult
        if production {
            let receipt = legacy(
                "Production",
                receipt: #""receipt_type":"Production","adam_id":"1234567890","bundle_id":"com.visla.gps""#,
                transactionId: "1000000000000700")
            result = reconcile(workspace.file("first.json", [receipt]), Self.production + Self.appAppleId)
        } else {
            result = reconcile(workspace.file("first.json", [try page(["2000000000000002"])]), [])
        }
        #expect(result.code == 0, "\(result.err)")
        #expect(result.json?["appended"] == 1)
        return head
    }

    var head: JSONValue? { ledger(["digest", "--data", workspace.data, "--json"]).json?["head"] }

    func reconcile(_ file: String, _ flags: [String]) -> CommandResult {
        let identity = flags.isEmpty ? workspace.verifyFlags : flags + ["--trust-root", workspace.root]
        return ledger(["reconcile", "--data", workspace.data, "--json"] + identity + [file])
    }

    /// A Get Transaction History page of sandbox transactions signed by the test PKI, with the envelope given.
    func page(_ ids: [String], envelope: JSONObject = ["bundleId": "com.visla.gps", "environment": "Sandbox"]) throws
        -> String
    {
        var object = envelope
        object["signedTransactions"] = .array(
            try ids.map { .string(try workspace.pki.sign(TestPKI.Payloads.transaction(transactionId: $0))) })
        return JSONValue.object(object).serialized()
    }

    /// Expects the refusal: exit 1, the counts on stdout, the status and reason on stderr, the head unchanged.
    func expectRefused(
        _ result: CommandResult, _ status: String, _ reason: String, head before: JSONValue?,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.code == 1, "\(result.err)", sourceLocation: sourceLocation)
        #expect(result.json?["appended"] == 0, sourceLocation: sourceLocation)
        #expect(result.json?["rejected"] == 1, sourceLocation: sourceLocation)
        #expect(result.err.contains(": \(status): "), "\(result.err)", sourceLocation: sourceLocation)
        #expect(result.err.contains(reason), "\(result.err)", sourceLocation: sourceLocation)
        #expect(result.err.contains("nothing of"), "\(result.err)", sourceLocation: sourceLocation)
        #expect(head == before, "the log's head is unchanged", sourceLocation: sourceLocation)
        let kept = ledger(["quarantine", "--data", workspace.data, "--json"]).json?.array?.last
        #expect(kept?["status"] == .string(status), sourceLocation: sourceLocation)
    }

    /// The issue's case: another app's sandbox receipt into a production ledger, no --bundle-id given.
    @Test func anotherAppsLegacyReceiptIsRefused() throws {
        let before = try bound(production: true)
        let receipt = legacy(
            "Production", receipt: #""receipt_type":"Production","adam_id":"1234567890","bundle_id":"com.some.thing""#)
        let result = ledger(
            [
                "reconcile", "--data", workspace.data, "--trust-root", workspace.root,
                workspace.file("r.json", [receipt]),
            ])
        expectRefused(
            result, "INVALID_APP_IDENTIFIER",
            "the receipt names bundle id com.some.thing, not this ledger's com.visla.gps",
            head: before)
    }

    @Test(arguments: [
        (true, "ProductionSandbox", "receipt.receipt_type is ProductionSandbox, which is not a Production receipt"),
        (true, "Sandbox", "receipt.receipt_type is Sandbox"),
        (false, "Production", "receipt.receipt_type is Production, which is not a Sandbox receipt"),
    ])
    func aReceiptTypeOfTheOtherEnvironmentIsRefused(production: Bool, type: String, reason: String) throws {
        let before = try bound(production: production)
        let receipt = legacy(
            production ? "Production" : "Sandbox",
            receipt: #""receipt_type":"\#(type)","adam_id":"\#(production ? "1234567890" : "0")","#
                + #""bundle_id":"com.visla.gps""#)
        let result = reconcile(workspace.file("r.json", [receipt]), production ? Self.production : [])
        expectRefused(result, "INVALID_ENVIRONMENT", reason, head: before)
    }

    @Test(arguments: [
        (true, #""adam_id":"42","#, "the receipt names adam_id 42, not this ledger's App Apple ID 1234567890"),
        (true, "", "the receipt names no adam_id, not this ledger's App Apple ID 1234567890"),
        (false, #""adam_id":"42","#, "the receipt names adam_id 42; a sandbox receipt carries 0 or none"),
    ])
    func aWrongAdamIdIsRefused(production: Bool, adamId: String, reason: String) throws {
        let before = try bound(production: production)
        let receipt = legacy(
            production ? "Production" : "Sandbox",
            receipt: #""receipt_type":"\#(production ? "Production" : "ProductionSandbox")",\#(adamId)"#
                + #""bundle_id":"com.visla.gps""#)
        let result = reconcile(workspace.file("r.json", [receipt]), production ? Self.production : [])
        expectRefused(result, "INVALID_APP_IDENTIFIER", reason, head: before)
    }

    @Test func aSandboxReceiptOfTheLedgersAppIsImported() throws {
        _ = try bound(production: false)
        let receipt = legacy(
            "Sandbox", receipt: #""receipt_type":"ProductionSandbox","adam_id":0,"bundle_id":"com.visla.gps""#)
        let result = reconcile(workspace.file("r.json", [receipt]), [])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.json?["appended"] == 1)
    }

    /// Its transactions are the ledger's environment, but the envelope says otherwise: INVALID_ENVIRONMENT, not
    /// INVALID_JWT_FORMAT.
    @Test func anEnvelopeOfTheOtherEnvironmentIsRefused() throws {
        let before = try bound(production: false)
        let page = try page(["2000000000000003"], envelope: ["bundleId": "com.visla.gps", "environment": "Production"])
        let result = reconcile(workspace.file("p.json", [page]), [])
        expectRefused(
            result, "INVALID_ENVIRONMENT", "the response is from the Production environment; this ledger holds Sandbox",
            head: before)
        #expect(!result.err.contains("INVALID_JWT_FORMAT"))
    }

    @Test func anEnvelopeOfAnotherBundleIsRefused() throws {
        let before = try bound(production: false)
        let page = try page(["2000000000000003"], envelope: ["bundleId": "com.some.thing", "environment": "Sandbox"])
        let result = reconcile(workspace.file("p.json", [page]), [])
        expectRefused(
            result, "INVALID_APP_IDENTIFIER",
            "the response is for bundle id com.some.thing, not this ledger's com.visla.gps",
            head: before)
    }

    @Test func aStatusesEnvelopeOfAnotherAppAppleIdIsRefused() throws {
        let before = try bound(production: true)
        let statuses = JSONValue.object([
            "environment": "Production", "bundleId": "com.visla.gps", "appAppleId": 42, "data": [],
        ]).serialized()
        let result = reconcile(workspace.file("s.json", [statuses]), Self.production)
        expectRefused(
            result, "INVALID_APP_IDENTIFIER", "the response is for App Apple ID 42, not this ledger's 1234567890",
            head: before)
    }

    /// A signed item of another app inside an envelope that names ours: the verifier refuses it, and the good item
    /// beside it is not appended either.
    @Test func aSignedItemOfAnotherAppRefusesTheWholeFile() throws {
        let before = try bound(production: false)
        let foreign = try workspace.pki.sign(
            TestPKI.Payloads.transaction(transactionId: "2000000000000004", bundleId: "com.some.thing"))
        let good = try workspace.pki.sign(TestPKI.Payloads.transaction(transactionId: "2000000000000005"))
        let page = JSONValue.object([
            "bundleId": "com.visla.gps", "environment": "Sandbox",
            "signedTransactions": [.string(good), .string(foreign)],
        ]).serialized()
        let result = reconcile(workspace.file("p.json", [page]), [])
        expectRefused(result, "INVALID_APP_IDENTIFIER", "com.some.thing", head: before)
    }
}
