import LedgerCLI
import LedgerJSON
import LedgerTesting

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `ledger` in-process with captured output.
struct CommandResult {
    var code: Int32
    var out: String
    var err: String

    var json: JSONValue? { try? JSONValue.parse(out) }
}

func ledger(_ arguments: [String], environment: [String: String] = [:]) -> CommandResult {
    let capture = OutputCapture()
    let code = Terminal.$capture.withValue(capture) { LedgerMain.run(arguments, environment: environment) }
    return CommandResult(code: code, out: capture.standardOutput, err: capture.standardError)
}

/// Writes a file.
func write(_ path: String, _ text: String) {
    let file = fopen(path, "w")!
    fputs(text, file)
    fclose(file)
}

/// Writes bytes to a file.
func write(_ path: String, bytes: [UInt8]) {
    let file = fopen(path, "w")!
    _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    fclose(file)
}

/// A workspace for CLI tests: a data directory, the test PKI's root on disk, and the verify flags.
struct Workspace {
    let directory = TemporaryDirectory()
    let pki = TestPKI.shared

    init() {
        write(root, bytes: pki.rootDER)
    }

    var data: String { directory.path + "/data" }
    var root: String { directory.path + "/root.der" }
    var verifyFlags: [String] {
        ["--environment", "sandbox", "--bundle-id", TestPKI.bundleId, "--trust-root", root]
    }

    func file(_ name: String, _ lines: [String]) -> String {
        let path = directory.path + "/" + name
        write(path, lines.joined(separator: "\n") + "\n")
        return path
    }
}
