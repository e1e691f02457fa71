import LedgerCore
import Testing

@testable import LedgerCLI

/// The command table: every command is one type, found by its name, whose spec declares every option it reads.
@Suite struct CommandTableTests {
    @Test func everyCommandIsFoundByItsNameAndListedInHelpOrder() {
        let names = LedgerCommands.all.map { $0.spec.name }
        #expect(Set(names).count == names.count, "a name is taken twice: \(names)")
        #expect(LedgerMain.parser.commands.map(\.name) == names)
        for command in LedgerCommands.all {
            let found = LedgerCommands.command(named: command.spec.name)
            #expect(found.map(ObjectIdentifier.init) == ObjectIdentifier(command), "\(command.spec.name)")
        }
        #expect(LedgerCommands.command(named: "help") == nil, "help is answered by LedgerMain, not a command")
        let overview = ledger(["help"]).out
        let listed = overview.split(separator: "\n").compactMap { line in
            line.hasPrefix("  ") ? line.split(separator: " ").first.map(String.init) : nil
        }.filter(names.contains)
        #expect(listed == names, "help lists the commands in table order")
    }

    @Test func noCommandDeclaresAnOptionTwice() {
        for command in LedgerCommands.all {
            let names = command.spec.options.map(\.name)
            #expect(Set(names).count == names.count, "\(command.spec.name) declares an option twice: \(names)")
        }
    }

    @Test func readingAnOptionItsSpecDoesNotDeclareIsAnInternalError() throws {
        let parsed = try LedgerMain.parser.parse(["state", "--user", "1", "--at", "2026-03-01T00:00:00Z"])
        let context = try CommandContext(arguments: parsed, environment: [:])
        #expect(try context.instant(StateCommand.at)?.iso8601 == "2026-03-01T00:00:00Z")
        #expect(try context.subject() == .user(1))
        // `--as-of` is history's: were state to read it, it would be silently absent; instead it is a bug, exit 70.
        do {
            _ = try context.instant(HistoryCommand.asOf)
            Issue.record("reading an undeclared option must fail")
        } catch {
            #expect(error.exitCode == 70)
            #expect(
                error.message.contains("'ledger state' reads --as-of, which its spec does not declare"),
                "\(error.message)")
        }
    }

    @Test func theSharedReadersTakeWhatACommandWithoutTheOptionLacksAsAbsent() throws {
        // catalog declares neither --data nor --store: the shared readers fall back to their defaults.
        let parsed = try LedgerMain.parser.parse(["catalog", "--json"])
        let context = try CommandContext(arguments: parsed, environment: ["LEDGER_DATA": "/srv/ledger"])
        #expect(context.json)
        #expect(context.dataDirectory == "/srv/ledger")
        #expect(context.store == nil)
    }
}
