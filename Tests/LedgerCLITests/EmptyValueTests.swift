import Testing

@testable import LedgerCLI

/// Empty values that used to switch a safeguard off or point the ledger at "" without a word.
@Suite struct EmptyValueTests {
    let workspace = Workspace()

    /// `--read-token ${READ_TOKEN}` with the variable unset (as in the README's systemd unit) gives an empty
    /// token: it must not open the read endpoints to anyone. The host cannot be resolved, so a regression fails
    /// with exit 1 instead of serving.
    @Test(arguments: ["--read-token", "--admin-token"])
    func serveRefusesAnEmptyToken(flag: String) {
        let result = ledger(
            ["serve", "--data", workspace.data, "--host", "999.1.1.1", "--port", "0", flag, ""]
                + workspace.verifyFlags)
        #expect(result.code == 64, "\(result.err)")
        #expect(result.err.hasPrefix("error: \(flag) is empty"))
    }

    @Test func anEmptyDataDirectoryIsAUsageError() {
        let result = ledger(["state", "--data", "", "--user", "1", "--json"])
        #expect(result.code == 64)
        #expect(result.err.hasPrefix("error: --data needs a directory"))
    }

    /// A user id has one spelling: `01`, `+1` and `-1` are usage errors, not user 1 (or no one).
    @Test(arguments: ["", "01", "+1", "-1", "4294967296", "x"])
    func aUserIdNotWrittenAsOneIsAUsageError(id: String) {
        let result = ledger(["state", "--data", workspace.data, "--user", id, "--json"])
        #expect(result.code == 64, "\(id): \(result.err)")
        #expect(result.err.contains("is not a user id") || result.err.contains("--user"), "\(result.err)")
    }

    @Test func anEmptyLedgerDataFallsBackToEvents() throws {
        let parsed = try LedgerMain.parser.parse(["state", "--user", "1"])
        let unset = try CommandContext(arguments: parsed, environment: ["LEDGER_DATA": ""])
        #expect(unset.dataDirectory == "Events")
        let set = try CommandContext(arguments: parsed, environment: ["LEDGER_DATA": workspace.data])
        #expect(set.dataDirectory == workspace.data)
    }
}
