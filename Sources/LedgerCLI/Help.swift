/// Renders help in the manner of swift-argument-parser: OVERVIEW, USAGE, OPTIONS, SUBCOMMANDS.
enum Help {
    static func overview(_ commands: [CommandSpec]) -> String {
        var out = """
            OVERVIEW: ledger — the system of record for Visla's App Store subscriptions.

            USAGE: ledger <subcommand> [options]

            SUBCOMMANDS:

            """
        let width = (commands.map(\.name.count).max() ?? 0) + 2
        for command in commands {
            out += "  " + command.name.padding(to: width) + command.summary + "\n"
        }
        out += """

              See 'ledger help <subcommand>' for detailed help.
              Exit codes: 0 success; 1 a failure found (rejected input, invalid signature, corruption);
              64 usage error; 70 internal error.
              Commands that only read (and repair, rebuild) refuse a --data directory that does not exist
              (exit 1); commands that append records create it.

            """
        return out
    }

    static func command(_ spec: CommandSpec) -> String {
        var out = "OVERVIEW: \(spec.summary)\n"
        if !spec.discussion.isEmpty {
            out += "\n" + wrap(spec.discussion, width: 100, indent: 0) + "\n"
        }
        out += "\nUSAGE:\n"
        for line in spec.usage { out += "  ledger \(line)\n" }
        if !spec.options.isEmpty {
            out += "\nOPTIONS:\n"
            let labels = spec.options.map { option in
                option.value.map { "\(option.name) \($0)" } ?? option.name
            }
            let width = min((labels.map(\.count).max() ?? 0) + 2, 34)
            for (label, option) in zip(labels, spec.options) {
                if label.count + 2 > width {
                    out += "  \(label)\n" + String(repeating: " ", count: width + 2) + option.help + "\n"
                } else {
                    out += "  " + label.padding(to: width) + option.help + "\n"
                }
            }
            out += "  " + "-h, --help".padding(to: width) + "Show help information.\n"
        }
        for section in spec.sections {
            out += "\n\(section.title):\n" + render(section.rows, width: 100)
        }
        return out
    }

    /// Rows of a help section: each label in a column (at most 34 wide; a longer one on a line of its own) with
    /// its text wrapped beside it; a row without a label is a paragraph indented by two.
    static func render(_ rows: [HelpSection.Row], width: Int) -> String {
        let column = min((rows.map(\.label.count).max() ?? 0) + 2, 34)
        var out = ""
        for row in rows {
            if row.label.isEmpty {
                out += wrap(row.text, width: width - 2, indent: 2) + "\n"
                continue
            }
            let text = wrap(row.text, width: width - column - 2, indent: column + 2)
            if row.label.count + 2 > column {
                out += "  \(row.label)\n" + text + "\n"
            } else {
                out += "  " + row.label.padding(to: column) + text.dropFirst(column + 2) + "\n"
            }
        }
        return out
    }

    static func usage(_ spec: CommandSpec) -> String {
        "USAGE:\n" + spec.usage.map { "  ledger \($0)\n" }.joined()
            + "See 'ledger help \(spec.name)'.\n"
    }

    static func wrap(_ text: String, width: Int, indent: Int) -> String {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if current.count + word.count + 1 > width, !current.isEmpty {
                lines.append(current)
                current = ""
            }
            current += current.isEmpty ? String(word) : " " + word
        }
        if !current.isEmpty { lines.append(current) }
        return lines.map { String(repeating: " ", count: indent) + $0 }.joined(separator: "\n")
    }
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
