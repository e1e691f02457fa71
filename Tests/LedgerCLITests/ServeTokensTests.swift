import LedgerTesting
import Testing

@testable import LedgerCLI

#if canImport(Glibc)
    import Glibc
#endif

/// Where `ledger serve` takes its bearer tokens from, and that no error or warning ever repeats one.
@Suite struct ServeTokensTests {
    let directory = TemporaryDirectory()

    /// A token file of mode `mode`.
    func tokenFile(_ name: String, _ text: String, mode: mode_t = 0o600) -> String {
        let path = directory.path + "/" + name
        write(path, text)
        chmod(path, mode)
        return path
    }

    func resolve(_ arguments: [String], environment: [String: String] = [:]) throws(CLIError) -> ServeTokens {
        let parsed = try LedgerMain.parser.parse(["serve"] + arguments)
        return try ServeTokens.resolve(parsed, environment: environment)
    }

    @Test func aTokenFileIsReadWithoutTheWhiteSpaceAroundIt() throws {
        let read = tokenFile("read", "  r34d-t0ken\r\n")
        let admin = tokenFile("admin", "adm1n-t0ken\n", mode: 0o400)
        let tokens = try resolve(["--read-token-file", read, "--admin-token-file", admin])
        #expect(tokens == ServeTokens(read: "r34d-t0ken", admin: "adm1n-t0ken", warnings: []))
    }

    @Test func theEnvironmentGivesTokensWithoutAWarning() throws {
        let tokens = try resolve([], environment: ["LEDGER_READ_TOKEN": "r34d", "LEDGER_ADMIN_TOKEN": "adm1n"])
        #expect(tokens == ServeTokens(read: "r34d", admin: "adm1n", warnings: []))
    }

    @Test func noSourceLeavesReadsOpenAndAdminOff() throws {
        #expect(try resolve([]) == ServeTokens(read: nil, admin: nil, warnings: []))
    }

    @Test func aTokenOnTheCommandLineStillWorksWithAWarning() throws {
        let tokens = try resolve(["--read-token", "r34d-s3cret"])
        #expect(tokens.read == "r34d-s3cret")
        #expect(
            tokens.warnings == [
                "tokens on the command line are visible to every user through ps; use --read-token-file or "
                    + "$LEDGER_READ_TOKEN"
            ])
    }

    @Test func aTokenFileOthersCanReadIsUsedWithAWarningNamingItsMode() throws {
        let path = tokenFile("read", "r34d-s3cret\n", mode: 0o640)
        let tokens = try resolve(["--read-token-file", path])
        #expect(tokens.read == "r34d-s3cret")
        #expect(
            tokens.warnings == [
                "--read-token-file \(path) is readable by other users (mode 0640); chmod 600 it (or 400)"
            ])
    }

    @Test func theSameTokenForReadAndAdminIsWarnedOf() throws {
        let tokens = try resolve(
            [], environment: ["LEDGER_READ_TOKEN": "same-s3cret", "LEDGER_ADMIN_TOKEN": "same-s3cret"])
        #expect(tokens.warnings.count == 1)
        #expect(tokens.warnings[0].hasPrefix("the read and admin tokens are the same"))
        #expect(!tokens.warnings[0].contains("same-s3cret"))
    }

    /// Two sources for one token: which one wins would be a guess. Exit 64, naming the sources, not the tokens.
    @Test(arguments: [
        (["--read-token-file", "FILE", "--read-token", "fl4g-s3cret"], [:], "--read-token-file, --read-token"),
        (["--read-token", "fl4g-s3cret"], ["LEDGER_READ_TOKEN": "env-s3cret"], "$LEDGER_READ_TOKEN, --read-token"),
        (
            ["--admin-token-file", "FILE"], ["LEDGER_ADMIN_TOKEN": "env-s3cret"],
            "--admin-token-file, $LEDGER_ADMIN_TOKEN"
        ),
    ])
    func twoSourcesForOneTokenAreAUsageError(arguments: [String], environment: [String: String], named: String) {
        let file = tokenFile("token", "f1le-s3cret\n")
        let arguments = arguments.map { $0 == "FILE" ? file : $0 }
        let result = ledger(["serve", "--port", "0"] + arguments, environment: environment)
        #expect(result.code == 64, "\(result.err)")
        #expect(result.err.hasPrefix("error: the "), "\(result.err)")
        #expect(result.err.contains("given 2 ways (\(named))"), "\(result.err)")
        #expect(!result.err.contains("s3cret"), "\(result.err)")
    }

    @Test(arguments: ["LEDGER_READ_TOKEN", "LEDGER_ADMIN_TOKEN"])
    func anEmptyVariableIsAUsageError(variable: String) {
        let result = ledger(["serve", "--port", "0"], environment: [variable: ""])
        #expect(result.code == 64, "\(result.err)")
        #expect(result.err.hasPrefix("error: $\(variable) is set but empty"), "\(result.err)")
    }

    @Test func aTokenWithAControlCharacterIsAUsageError() {
        let result = ledger(["serve", "--port", "0"], environment: ["LEDGER_ADMIN_TOKEN": "two\nl1nes-s3cret"])
        #expect(result.code == 64, "\(result.err)")
        #expect(result.err.hasPrefix("error: $LEDGER_ADMIN_TOKEN holds a control character"), "\(result.err)")
        #expect(!result.err.contains("s3cret"))
    }

    /// A token file that cannot serve: exit 1, naming the flag and the path, never what the file holds.
    @Test(
        arguments: [
            ("missing", nil, "cannot read"),
            ("empty", "\n \n", "is empty; write the read token into it"),
            ("two-lines", "first-s3cret\nsecond-s3cret\n", "holds more than one line"),
            ("large", String(repeating: "s3cret", count: 1000), "holds more than 4096 bytes"),
        ] as [(String, String?, String)])
    func aTokenFileThatCannotServeIsAFailureNamingItsPath(name: String, text: String?, says: String) {
        let path = text.map { tokenFile(name, $0) } ?? directory.path + "/" + name
        let result = ledger(["serve", "--port", "0", "--read-token-file", path])
        #expect(result.code == 1, "\(result.err)")
        #expect(result.err.contains(path), "\(result.err)")
        #expect(result.err.contains(says), "\(result.err)")
        #expect(!result.err.contains("s3cret"), "\(result.err)")
    }

    @Test func anEmptyTokenFlagIsStillAUsageError() {
        let result = ledger(["serve", "--port", "0", "--admin-token-file", ""])
        #expect(result.code == 64, "\(result.err)")
        #expect(result.err.hasPrefix("error: --admin-token-file needs a file"), "\(result.err)")
    }

    @Test func helpServeNamesTheTokenSources() {
        let result = ledger(["help", "serve"])
        #expect(result.code == 0)
        for text in ["--read-token-file F", "--admin-token-file F", "$LEDGER_READ_TOKEN", "$LEDGER_ADMIN_TOKEN"] {
            #expect(result.out.contains(text), "\(text)")
        }
    }
}
