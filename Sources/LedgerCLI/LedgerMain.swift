#if canImport(Glibc)
    import Glibc
#endif

/// The `ledger` program: parses the command line, runs the command, maps errors to exit codes.
public enum LedgerMain {
    /// The parser for every command.
    public static let parser = ArgumentParser(commands: LedgerCommands.specs)

    /// Runs `ledger` with `arguments` (without the program name) and returns the exit code.
    public static func run(
        _ arguments: [String], environment: [String: String] = ProcessEnvironment.current()
    )
        -> Int32
    {
        do {
            let parsed = try parser.parse(arguments)
            let context = try CommandContext(arguments: parsed, environment: environment)
            return try dispatch(context)
        } catch {
            report(error)
            return error.exitCode
        }
    }

    /// Runs the command the arguments name, found by name in ``LedgerCommands/all``; `help` is answered here.
    static func dispatch(_ context: CommandContext) throws(CLIError) -> Int32 {
        let name = context.arguments.command
        if name == "help" { return help(context.arguments) }
        guard let command = LedgerCommands.command(named: name) else {
            throw CLIError(.internalError, "no handler for the command '\(name)'; this is a bug in ledger")
        }
        return try command.run(context)
    }

    static func help(_ arguments: ParsedArguments) -> Int32 {
        // `ledger help help` is answered by the overview, which says how help works.
        guard let name = arguments.positionals.first, name != "help" else {
            Terminal.out(Help.overview(parser.commands))
            return 0
        }
        guard let spec = parser.command(named: name) else {
            report(CLIError.usage("unknown command '\(name)'", command: nil))
            return 64
        }
        Terminal.out(Help.command(spec))
        return 0
    }

    static func report(_ error: CLIError) {
        Terminal.err("error: \(error.message)\n")
        if error.code == .usage {
            if let name = error.command, let spec = parser.command(named: name) {
                Terminal.err(Help.usage(spec))
            } else {
                Terminal.err("USAGE: ledger <subcommand> [options]\nSee 'ledger help'.\n")
            }
        }
    }
}

/// The process environment as a dictionary.
public enum ProcessEnvironment {
    /// Reads `environ`.
    public static func current() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }
}
