/// Parses command lines against the command specs: a pure function, tested on its own.
public struct ArgumentParser: Sendable {
    /// The commands known.
    public let commands: [CommandSpec]

    /// Creates a parser for these commands.
    public init(commands: [CommandSpec]) { self.commands = commands }

    /// The spec of a command.
    public func command(named name: String) -> CommandSpec? {
        commands.first { $0.name == name }
    }

    /// Parses `arguments` (without the program name). `ledger help X` and `ledger X --help` become the
    /// `help` command with X as its positional.
    public func parse(_ arguments: [String]) throws(CLIError) -> ParsedArguments {
        guard let first = arguments.first else {
            return ParsedArguments(command: "help")
        }
        if first == "--help" || first == "-h" || first == "help" {
            return ParsedArguments(command: "help", positionals: Array(arguments.dropFirst().prefix(1)))
        }
        guard let spec = command(named: first) else {
            if first.hasPrefix("-") {
                throw CLIError.usage("expected a command before '\(first)'", command: nil)
            }
            let hint = Suggestion.closest(to: first, among: commands.map(\.name)).map {
                " (did you mean '\($0)'?)"
            }
            throw CLIError.usage("unknown command '\(first)'\(hint ?? "")", command: nil)
        }
        var parsed = ParsedArguments(command: spec.name)
        var rest = arguments.dropFirst()[...]
        var onlyPositionals = false
        while let argument = rest.popFirst() {
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            if argument == "--help" || argument == "-h" {
                return ParsedArguments(command: "help", positionals: [spec.name])
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = spec.option(named: name) else {
                if name == SharedOptions.catalog.name {
                    throw CLIError.usage(SharedOptions.catalogMoved, command: spec.name)
                }
                let hint = Suggestion.closest(to: name, among: spec.options.map(\.name))
                    .map { " (did you mean '\($0)'?)" }
                throw CLIError.usage(
                    "unknown option '\(name)' for '\(spec.name)'\(hint ?? "")", command: spec.name)
            }
            if !option.repeatable, parsed.values[name] != nil {
                throw CLIError.usage("option '\(name)' given more than once", command: spec.name)
            }
            if let placeholder = option.value {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if let next = rest.first, !next.hasPrefix("--") {
                    value = next
                    rest = rest.dropFirst()
                } else if let next = rest.first {
                    // `--reason --json` is a forgotten value, not a reason: `--reason=--json` says it is meant.
                    throw CLIError.usage(
                        "option '\(name)' needs a value (\(placeholder)), not the option '\(next)'; write "
                            + "\(name)=\(next) for a value that starts with '--'", command: spec.name)
                } else {
                    throw CLIError.usage(
                        "option '\(name)' needs a value (\(placeholder))", command: spec.name)
                }
                parsed.values[name, default: []].append(value)
            } else {
                guard inlineValue == nil else {
                    throw CLIError.usage("flag '\(name)' takes no value", command: spec.name)
                }
                parsed.values[name, default: []].append("")
            }
        }
        let count = parsed.positionals.count
        if count < spec.positionals.lowerBound {
            let what = spec.positionalName ?? "argument"
            throw CLIError.usage("missing \(what)", command: spec.name)
        }
        if count > spec.positionals.upperBound {
            let extra = parsed.positionals[spec.positionals.upperBound]
            throw CLIError.usage("unexpected argument '\(extra)'", command: spec.name)
        }
        return parsed
    }
}

/// "Did you mean" suggestions by edit distance.
enum Suggestion {
    /// The candidate closest to `word`, when it is close enough to be a likely typo.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let scored = candidates.map { ($0, distance(word, $0)) }.min { $0.1 < $1.1 }
        guard let (best, score) = scored, score <= max(2, word.count / 3) else { return nil }
        return best
    }

    /// Levenshtein distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8)
        let b = Array(b.utf8)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
