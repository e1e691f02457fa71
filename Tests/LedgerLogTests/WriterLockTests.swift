import LedgerStore
import LedgerSystem
import Testing

@testable import LedgerLog

#if canImport(Glibc)
    import Glibc
#endif

/// `LOCK`: private, naming its holder by pid, start time and command only, whatever the command line held.
@Suite struct WriterLockTests {
    func lockText(_ directory: String) throws -> String {
        String(decoding: try #require(try PosixFileSystem().readFile(directory + "/LOCK")), as: UTF8.self)
    }

    func mode(_ path: String) -> mode_t {
        var info = stat()
        #expect(stat(path, &info) == 0)
        return info.st_mode & 0o777
    }

    @Test func lockIsPrivateAndHoldsPidStartAndCommandOnly() throws {
        let temp = TempDirectory()
        let writer = try openWriter(temp.data, options: LogOptions(lockHolder: "ledger serve"))
        defer { writer.close() }
        #expect(mode(temp.data + "/LOCK") == 0o600)
        let lines = try lockText(temp.data).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0] == "pid \(getpid())")
        #expect(lines[1].hasPrefix("started 20") && lines[1].hasSuffix("Z") && lines[1].count == 28, "\(lines[1])")
        #expect(lines[2] == "command ledger serve")
    }

    /// Without a name from the caller, the program's name alone: none of its arguments.
    @Test func withoutAHolderNameLockNamesTheProgramAlone() throws {
        let temp = TempDirectory()
        let writer = try openWriter(temp.data)
        defer { writer.close() }
        let command = try #require(try lockText(temp.data).split(separator: "\n").last)
        #expect(command.hasPrefix("command "))
        #expect(!command.contains(" -") && !command.contains("/"), "\(command)")
        #expect(command.split(separator: " ").count == 2, "\(command)")
    }

    /// An earlier build's LOCK (0644, the whole command line, a token in it) is made private and overwritten.
    @Test func anEarlierBuildsLockIsMadePrivateAndReplaced() throws {
        let temp = TempDirectory()
        try PosixFileSystem().createDirectories(temp.data)
        let old = "pid 1\ncommand /usr/local/bin/ledger serve --read-token r34d-s3cret --admin-token adm1n-s3cret\n"
        let fd = open(temp.data + "/LOCK", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        #expect(fd >= 0)
        _ = old.utf8CString.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, old.utf8.count) }
        fchmod(fd, 0o644)
        Glibc.close(fd)
        let writer = try openWriter(temp.data, options: LogOptions(lockHolder: "ledger serve"))
        defer { writer.close() }
        #expect(mode(temp.data + "/LOCK") == 0o600)
        let text = try lockText(temp.data)
        #expect(!text.contains("s3cret"), "\(text)")
        #expect(text.hasPrefix("pid \(getpid())\nstarted "))
        #expect(text.hasSuffix("\ncommand ledger serve\n"))
    }

    @Test func aSecondWriterIsToldThePidStartAndCommandOfTheFirst() throws {
        let temp = TempDirectory()
        let writer = try openWriter(temp.data, options: LogOptions(lockHolder: "ledger serve"))
        defer { writer.close() }
        let started = try #require(try lockText(temp.data).split(separator: "\n").first { $0.hasPrefix("started ") })
        do {
            _ = try openWriter(temp.data)
            Issue.record("a second writer must be refused")
        } catch let error as LogError {
            #expect(error.code == .locked)
            #expect(error.message.contains("(pid \(getpid()), \(started): ledger serve); stop it first"), "\(error)")
        }
    }

    /// A LOCK with an earlier build's text under a running writer: the refusal repeats the program and the
    /// subcommand, never the arguments.
    @Test func aRefusalNamingAnEarlierBuildsHolderLeavesItsArgumentsOut() throws {
        let temp = TempDirectory()
        let writer = try openWriter(temp.data)
        defer { writer.close() }
        let old = "pid 77\ncommand /usr/local/bin/ledger serve --read-token r34d-s3cret --port 8080\n"
        let fd = open(temp.data + "/LOCK", O_WRONLY | O_TRUNC)
        _ = old.utf8CString.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, old.utf8.count) }
        Glibc.close(fd)
        do {
            _ = try openWriter(temp.data)
            Issue.record("a second writer must be refused")
        } catch let error as LogError {
            #expect(error.message.contains("(pid 77: ledger serve); stop it first"), "\(error)")
            #expect(!error.message.contains("s3cret"))
        }
    }

    @Test(arguments: [
        ("/usr/bin/ledger serve --read-token s3cret", "ledger serve"),
        ("ledger --read-token s3cret serve", "ledger"),
        ("ledger s3cret-token", "ledger"),
        ("/opt/ledger/bin/ledger", "ledger"),
        ("ledger ingest /var/data/s3cret.jsonl", "ledger ingest"),
        ("", ""),
    ])
    func theCommandNameKeepsTheProgramAndSubcommandOnly(text: String, name: String) {
        #expect(WriterLock.commandName(text) == name)
    }
}
