import LedgerJSON
import LedgerSystem
import LedgerTesting
import Testing

/// The data directory knows whose it is: its first write records the environment and the app, later commands take
/// them as defaults and refuse another value naming both, and no writer runs without knowing the app.
@Suite struct DataDirectoryIdentityTests {
    let workspace = Workspace()

    func ingestOne(_ flags: [String], uuid: Int = 1) throws -> CommandResult {
        let signed = try workspace.pki.signedNotification(uuid: TestPKI.Payloads.uuid(uuid))
        let body = String(decoding: TestPKI.body(signed), as: UTF8.self)
        return ledger(["ingest", "--data", workspace.data] + flags + [workspace.file("in-\(uuid).jsonl", [body])])
    }

    var digest: JSONValue? { ledger(["digest", "--data", workspace.data, "--json"]).json }

    @Test(arguments: ["ingest", "reconcile"])
    func aFirstWriteWithoutABundleIdIsAUsageError(command: String) {
        let input = workspace.file("empty.json", [#"{"signedTransactions":[],"environment":"Sandbox"}"#])
        let result = ledger(
            [command, "--data", workspace.data, "--environment", "sandbox", "--trust-root", workspace.root, input])
        #expect(result.code == 64, "\(result.err)")
        #expect(result.err.hasPrefix("error: --bundle-id ID is required"), "\(result.err)")
        #expect(!result.err.contains("warning: no --bundle-id"))
        #expect(ledger(["verify", "--data", workspace.data]).code == 1, "no data directory was created")
    }

    @Test func laterCommandsTakeTheDirectorysIdentity() throws {
        #expect(try ingestOne(workspace.verifyFlags).code == 0)
        // Only the trust root: the environment and the bundle id come from the directory.
        let again = try ingestOne(["--trust-root", workspace.root], uuid: 2)
        #expect(again.code == 0, "\(again.err)")
        #expect(again.err.contains("verifying Sandbox notifications for com.visla.gps"), "\(again.err)")
        let audit = ledger(["audit", "--data", workspace.data, "--user", "42", "--trust-root", workspace.root])
        #expect(audit.code == 0, "\(audit.err)")
        let fromEnvironment = ledger(
            ["audit", "--data", workspace.data, "--user", "42"], environment: ["LEDGER_TRUST_ROOTS": workspace.root])
        #expect(fromEnvironment.code == 0, "\(fromEnvironment.err)")
    }

    /// A directory whose `meta` is damaged is not one bound to nothing: a writer names the damage (exit 1) instead
    /// of asking for the flags the directory would have given (exit 64).
    @Test(arguments: ["ingest", "serve"])
    func aDamagedMetaIsAFailureNotAMissingFlag(command: String) throws {
        #expect(try ingestOne(workspace.verifyFlags).code == 0)
        let meta = workspace.data + "/meta"
        var bytes = try #require(try PosixFileSystem().readFile(meta))
        bytes[bytes.count / 2] ^= 0x20
        write(meta, bytes: bytes)
        let result = ledger(
            [command, "--data", workspace.data, "--trust-root", workspace.root]
                + (command == "serve" ? ["--port", "0"] : []))
        #expect(result.code == 1, "\(result.err)")
        #expect(result.err.hasPrefix("error: ") && result.err.contains("meta"), "\(result.err)")
        // verify --json still prints its one document, the damage as its problem.
        let verify = ledger(["verify", "--data", workspace.data, "--json"])
        #expect(verify.code == 1)
        #expect(verify.json?["ok"] == false && verify.json?["records"] == 1, "\(verify.out)")
        #expect(verify.json?["problem"]?["message"]?.string?.contains("/meta") == true, "\(verify.out)")
    }

    @Test func anotherBundleIdIsRefusedNamingBoth() throws {
        #expect(try ingestOne(workspace.verifyFlags).code == 0)
        let head = digest
        for command in ["ingest", "reconcile", "audit"] {
            let flags = ["--environment", "sandbox", "--bundle-id", "com.some.thing", "--trust-root", workspace.root]
            let input = workspace.file("page.json", [#"{"signedTransactions":[],"environment":"Sandbox"}"#])
            let arguments =
                command == "audit"
                ? ["audit", "--data", workspace.data, "--user", "42"] + flags
                : [command, "--data", workspace.data] + flags + [input]
            let result = ledger(arguments)
            #expect(result.code == 1, "\(command): \(result.err)")
            #expect(
                result.err.hasPrefix(
                    "error: --bundle-id com.some.thing differs from com.visla.gps, the bundle id \(workspace.data) is"
                        + " bound to"), "\(command): \(result.err)")
        }
        #expect(digest == head, "nothing appended")
    }

    @Test func anotherEnvironmentIsRefusedNamingBoth() throws {
        #expect(try ingestOne(workspace.verifyFlags).code == 0)
        let head = digest
        let result = try ingestOne(
            ["--environment", "production", "--app-apple-id", "1234567890", "--trust-root", workspace.root], uuid: 2)
        #expect(result.code == 1)
        #expect(result.err.hasPrefix("error: --environment Production differs from Sandbox"), "\(result.err)")
        #expect(digest == head, "nothing appended")
    }

    /// A production ledger (bound by a legacy receipt, which needs no signature) keeps its App Apple ID.
    @Test func anotherAppAppleIdIsRefusedNamingBoth() throws {
        let flags = ["--environment", "production", "--bundle-id", TestPKI.bundleId, "--trust-root", workspace.root]
        let receipt = workspace.file(
            "receipt.json",
            [
                #"{"status":0,"environment":"Production","receipt":{"receipt_type":"Production","adam_id":1234567890,"#
                    + #""bundle_id":"com.visla.gps"},"latest_receipt_info":[{"quantity":"1","#
                    + #""product_id":"com.visla.gps.monthly_2","transaction_id":"1000000000000780","#
                    + #""original_transaction_id":"1000000000000780","purchase_date_ms":"1769904000000","#
                    + #""expires_date_ms":"1772323200000"}]}"#
            ])
        let first = ledger(
            ["reconcile", "--data", workspace.data] + flags + ["--app-apple-id", "1234567890", receipt])
        #expect(first.code == 0, "\(first.err)")
        let head = digest
        let other = ledger(["reconcile", "--data", workspace.data] + flags + ["--app-apple-id", "42", receipt])
        #expect(other.code == 1)
        #expect(
            other.err.hasPrefix("error: --app-apple-id 42 differs from 1234567890, the App Apple ID"), "\(other.err)")
        #expect(digest == head, "nothing appended")
        // Left out, it is the directory's: production needs it, and the directory has it.
        let defaulted = ledger(["reconcile", "--data", workspace.data, "--trust-root", workspace.root, receipt])
        #expect(defaulted.code == 0, "\(defaulted.err)")
        #expect(defaulted.json == .object(["appended": 0, "alreadyKnown": 1, "rejected": 0]))
    }
}
