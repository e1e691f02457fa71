import Testing

/// `--environment`'s error lists the values the command takes: only `inspect` reads Xcode's and local tests'.
@Suite struct EnvironmentFlagTests {
    let workspace = Workspace()

    @Test(arguments: ["xcode", "local-testing", "staging"])
    func ingestListsOnlySandboxOrProduction(value: String) {
        let input = workspace.file("in.jsonl", [])
        let result = ledger(["ingest", "--data", workspace.data, "--environment", value, input])
        #expect(result.code == 64, "\(result.err)")
        #expect(result.err.hasPrefix("error: --environment '\(value)' is not sandbox or production\n"), "\(result.err)")
    }

    @Test func inspectListsEveryEnvironment() {
        let input = workspace.file("payload.jws", ["x"])
        let result = ledger(["inspect", "--environment", "staging", input])
        #expect(result.code == 64, "\(result.err)")
        #expect(
            result.err.hasPrefix("error: --environment 'staging' is not sandbox, production, xcode or local-testing"),
            "\(result.err)")
    }
}
