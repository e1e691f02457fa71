import LedgerTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A command that only reads the data directory refuses one that does not exist (a mistyped `--data` used to
/// report success with empty values), as do `repair` and `rebuild`, which only work on a log that is there; an
/// existing directory with no log yet is an empty ledger.
@Suite struct MissingDataDirectoryTests {
    let workspace = Workspace()

    static let readers: [[String]] = [
        ["verify", "--json"], ["digest", "--json"], ["state", "--user", "1", "--json"],
        ["history", "--user", "1", "--json"], ["export"], ["audit", "--user", "1", "--json"],
        ["report", "sales", "--from", "2026-01-01T00:00:00Z", "--to", "2026-02-01T00:00:00Z", "--json"],
        ["quarantine", "--json"], ["repair", "--json"], ["rebuild", "--json"],
    ]

    @Test(arguments: readers)
    func aReaderFailsOnADirectoryThatDoesNotExist(command: [String]) {
        let missing = workspace.directory.path + "/typo"
        let extra = command[0] == "audit" ? workspace.verifyFlags : []
        let result = ledger(command + ["--data", missing] + extra)
        #expect(result.code == 1, "\(result.out)")
        #expect(result.err.hasPrefix("error: no ledger at \(missing): the directory does not exist"), "\(result.err)")
        #expect(result.out.isEmpty)
        #expect(access(missing, F_OK) != 0, "reading must not create the directory")
    }

    @Test(arguments: readers)
    func aReaderTakesAnExistingDirectoryWithoutALogAsAnEmptyLedger(command: [String]) {
        let empty = workspace.directory.path + "/empty"
        mkdir(empty, 0o755)
        write(empty + "/README.md", "the data directory\n")
        let extra = command[0] == "audit" ? workspace.verifyFlags : []
        let result = ledger(command + ["--data", empty] + extra)
        #expect(result.code == 0, "\(result.err)")
    }

    @Test func aFileIsNoDataDirectory() {
        let file = workspace.directory.path + "/file"
        write(file, "not a ledger\n")
        let result = ledger(["verify", "--data", file, "--json"])
        #expect(result.code == 1)
        #expect(result.err.hasPrefix("error: no ledger at \(file): it is a file, not a directory"))
    }
}
