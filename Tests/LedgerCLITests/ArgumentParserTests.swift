import Testing

@testable import LedgerCLI

private let parser = LedgerMain.parser

@Test func parsesOptionsFlagsAndPositionals() throws {
    let parsed = try parser.parse([
        "ingest", "--data", "/tmp/x", "--json", "--trust-root=a.der", "--trust-root", "b.pem", "f1",
        "-",
    ])
    #expect(parsed.command == "ingest")
    #expect(parsed.value("--data") == "/tmp/x")
    #expect(parsed.has("--json"))
    #expect(parsed.all("--trust-root") == ["a.der", "b.pem"])
    #expect(parsed.positionals == ["f1", "-"])
}

@Test func helpForms() throws {
    #expect(try parser.parse([]) == ParsedArguments(command: "help"))
    #expect(
        try parser.parse(["help", "state"]) == ParsedArguments(command: "help", positionals: ["state"]))
    #expect(
        try parser.parse(["state", "--help"])
            == ParsedArguments(command: "help", positionals: ["state"]))
}

@Test func helpOnHelpIsTheOverview() {
    let result = ledger(["help", "help"])
    #expect(result.code == 0)
    #expect(result.out == ledger(["help"]).out)
    #expect(result.err.isEmpty)
}

@Test(arguments: [
    (["catlog"], "did you mean 'catalog'"),
    (["state", "--usr", "1"], "did you mean '--user'"),
    (["state", "--user"], "needs a value"),
    (["void", "--seq", "3", "--operator", "o", "--reason", "--json"], "needs a value (TEXT), not the option '--json'"),
    (["state", "--user", "1", "--data", "--json"], "write --data=--json"),
    (["digest", "extra"], "unexpected argument"),
    (["inspect"], "missing FILE|-"),
    (["verify", "--json=yes"], "takes no value"),
    (["state", "--at", "1", "--at", "2"], "more than once"),
])
func usageErrorsExplainThemselves(arguments: [String], fragment: String) {
    do {
        _ = try parser.parse(arguments)
        Issue.record("expected a usage error for \(arguments)")
    } catch {
        #expect(error.exitCode == 64)
        #expect(error.message.contains(fragment), "\(error.message)")
    }
}

@Test func aValueThatStartsWithTwoDashesIsWrittenWithAnEqualsSign() throws {
    let parsed = try parser.parse(["void", "--seq", "3", "--operator", "o", "--reason=--json", "--json"])
    #expect(parsed.values["--reason"] == ["--json"])
    #expect(parsed.values["--json"] == [""])
    #expect(try parser.parse(["state", "--user", "-1"]).values["--user"] == ["-1"], "one dash is a value")
}

@Test func everyCommandOfTheContractExists() {
    let names = Set(LedgerCommands.specs.map(\.name))
    for name in [
        "ingest", "inspect", "state", "history", "verify", "export", "import", "rebuild", "repair",
        "catalog", "link",
        "quarantine", "reconcile", "audit", "digest", "report", "correct", "simulate", "demo", "serve",
    ] {
        #expect(names.contains(name), "missing command \(name)")
    }
}

@Test func suggestionDistance() {
    #expect(Suggestion.distance("kitten", "sitting") == 3)
    #expect(Suggestion.closest(to: "verfy", among: ["verify", "export"]) == "verify")
    #expect(Suggestion.closest(to: "zzzzzz", among: ["verify", "export"]) == nil)
}
