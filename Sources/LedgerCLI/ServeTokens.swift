import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The bearer tokens of `ledger serve`, each from one of three sources: a file (`--read-token-file F`), the
/// environment (`$LEDGER_READ_TOKEN`) or, visible to every user through `ps`, the command line (`--read-token T`,
/// still accepted, with a warning).
///
/// Two sources for one token is a usage error: which one wins would be a guess. An error or warning names the flag,
/// the variable or the file, never the token.
struct ServeTokens: Equatable {
    /// One token and where it may come from.
    struct Kind: Equatable {
        /// `read` or `admin`.
        let name: String
        /// What leaving the token out means.
        let without: String
        /// The option with the token itself, e.g. `--read-token`.
        let tokenOption: OptionSpec
        /// The option naming a file holding the token, e.g. `--read-token-file`.
        let fileOption: OptionSpec

        /// The flag with the token itself, e.g. `--read-token`.
        var flag: String { tokenOption.name }
        /// The flag naming a file holding the token, e.g. `--read-token-file`.
        var fileFlag: String { fileOption.name }
        /// The environment variable holding the token, e.g. `LEDGER_READ_TOKEN`.
        var variable: String { "LEDGER_\(name.uppercased())_TOKEN" }

        /// The read endpoints' token.
        static let read = Kind(
            name: "read", without: "the read endpoints open to anyone", tokenOption: ServeCommand.readToken,
            fileOption: ServeCommand.readTokenFile)
        /// The admin endpoints' token.
        static let admin = Kind(
            name: "admin", without: "the admin endpoints off", tokenOption: ServeCommand.adminToken,
            fileOption: ServeCommand.adminTokenFile)
    }

    /// The most bytes a token file may hold: a token, not a document.
    static let fileLimit = 4096

    /// The read endpoints' token; nil leaves them open.
    var read: String?
    /// The admin endpoints' token; nil turns them off.
    var admin: String?
    /// What to say on standard error before serving (each without the `warning: ` prefix).
    var warnings: [String] = []

    /// Both tokens from the arguments and the environment.
    /// - Throws: ``CLIError`` usage (64) for a token given two ways, an empty flag or variable, or one holding a
    ///   control character; failure (1) for a token file that cannot be read, is empty, too large, or holds more
    ///   than one line.
    static func resolve(_ arguments: ParsedArguments, environment: [String: String]) throws(CLIError) -> ServeTokens {
        var tokens = ServeTokens()
        tokens.read = try token(.read, arguments, environment, warnings: &tokens.warnings)
        tokens.admin = try token(.admin, arguments, environment, warnings: &tokens.warnings)
        if let read = tokens.read, read == tokens.admin {
            tokens.warnings.append(
                "the read and admin tokens are the same: whoever may read may also append corrections and links")
        }
        return tokens
    }

    /// One token from the one source given, nil when none is.
    static func token(
        _ kind: Kind, _ arguments: ParsedArguments, _ environment: [String: String], warnings: inout [String]
    ) throws(CLIError) -> String? {
        let command = arguments.command
        let path = arguments.value(kind.fileFlag)
        let variable = environment[kind.variable]
        let flag = arguments.value(kind.flag)
        let given = [
            path.map { _ in kind.fileFlag }, variable.map { _ in "$\(kind.variable)" }, flag.map { _ in kind.flag },
        ].compactMap { $0 }
        guard given.count <= 1 else {
            throw CLIError.usage(
                "the \(kind.name) token is given \(given.count) ways (\(given.joined(separator: ", "))); give it "
                    + "one way, best with \(kind.fileFlag) F", command: command)
        }
        if let path {
            return try fromFile(kind, path, warnings: &warnings)
        }
        if let variable {
            // An empty token would turn the guard off without a word (e.g. a variable set from an unset one).
            guard !variable.isEmpty else {
                throw CLIError.usage(
                    "$\(kind.variable) is set but empty; set it to the token, or unset it (\(kind.without))",
                    command: command)
            }
            guard isOneLine(variable) else {
                throw CLIError.usage(
                    "$\(kind.variable) holds a control character (a newline?); it must hold the token alone",
                    command: command)
            }
            return variable
        }
        if let flag {
            guard !flag.isEmpty else {
                throw CLIError.usage(
                    "\(kind.flag) is empty; give a token, or leave the flag out (\(kind.without))", command: command)
            }
            guard isOneLine(flag) else {
                throw CLIError.usage(
                    "\(kind.flag) holds a control character (a newline?); give the token alone", command: command)
            }
            warnings.append(
                "tokens on the command line are visible to every user through ps; use \(kind.fileFlag) or "
                    + "$\(kind.variable)")
            return flag
        }
        return nil
    }

    /// The token in a file: its text without the white space around it (a trailing newline).
    static func fromFile(_ kind: Kind, _ path: String, warnings: inout [String]) throws(CLIError) -> String {
        guard !path.isEmpty else {
            throw CLIError.usage("\(kind.fileFlag) needs a file; it is empty", command: "serve")
        }
        let read: [UInt8]?
        do {
            read = try InputFile.read(path, upTo: fileLimit)
        } catch {
            throw CLIError.failure("\(kind.fileFlag): \(error.message)")
        }
        guard let bytes = read else {
            throw CLIError.failure(
                "\(kind.fileFlag) \(path) holds more than \(fileLimit) bytes; it must hold the token alone")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CLIError.failure("\(kind.fileFlag) \(path) is not UTF-8 text; it must hold the token alone")
        }
        let token = text.trimmingWhiteSpace
        guard !token.isEmpty else {
            throw CLIError.failure("\(kind.fileFlag) \(path) is empty; write the \(kind.name) token into it")
        }
        guard isOneLine(token) else {
            throw CLIError.failure(
                "\(kind.fileFlag) \(path) holds more than one line, or a control character; it must hold the "
                    + "token alone")
        }
        if let mode = permissions(path), mode & 0o044 != 0 {
            let octal = String(mode & 0o777, radix: 8)
            warnings.append(
                "\(kind.fileFlag) \(path) is readable by other users (mode 0\(octal)); chmod 600 it (or 400)")
        }
        return token
    }

    /// Whether `text` has no control character (a header value cannot carry one, so no client could send it).
    static func isOneLine(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    /// The permission bits of `path`, nil when it cannot be stat'ed (or is standard input).
    static func permissions(_ path: String) -> UInt32? {
        guard path != "-" else { return nil }
        var info = stat()
        guard (try? Syscall.retrying("stat", path: path) { stat(path, &info) }) != nil else { return nil }
        return UInt32(info.st_mode) & 0o7777
    }
}

extension String {
    /// The text without spaces, tabs, carriage returns and newlines at either end.
    fileprivate var trimmingWhiteSpace: String {
        let scalars = unicodeScalars
        let blank: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = scalars.firstIndex(where: { !blank($0) }), let last = scalars.lastIndex(where: { !blank($0) })
        else { return "" }
        return String(scalars[first...last])
    }
}
