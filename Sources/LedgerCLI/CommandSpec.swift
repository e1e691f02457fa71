/// One option a command accepts.
public struct OptionSpec: Sendable, Hashable {
    /// The long name with dashes, e.g. `--data`.
    public var name: String
    /// The value's placeholder (`DIR`), or nil for a flag that takes no value.
    public var value: String?
    /// One line of help.
    public var help: String
    /// Whether it may be given more than once.
    public var repeatable: Bool

    /// Creates an option.
    public init(_ name: String, value: String? = nil, repeatable: Bool = false, _ help: String) {
        self.name = name
        self.value = value
        self.help = help
        self.repeatable = repeatable
    }
}

/// A titled block of help shown after a command's options, e.g. the HTTP endpoints of `serve`.
public struct HelpSection: Sendable, Hashable {
    /// One row: a label and its text, wrapped beside it; an empty label makes the text a paragraph.
    public struct Row: Sendable, Hashable {
        /// The left column, e.g. `GET /healthz`.
        public var label: String
        /// The explanation.
        public var text: String

        /// Creates a row.
        public init(_ label: String, _ text: String) {
            self.label = label
            self.text = text
        }
    }

    /// The heading, e.g. `ENDPOINTS`.
    public var title: String
    /// The rows, in order.
    public var rows: [Row]

    /// Creates a section.
    public init(_ title: String, _ rows: [Row]) {
        self.title = title
        self.rows = rows
    }
}

/// A command: its name, help and the options it accepts.
public struct CommandSpec: Sendable {
    /// The subcommand name, e.g. `ingest`.
    public var name: String
    /// One-line summary for the command list.
    public var summary: String
    /// The usage line(s) after `ledger`.
    public var usage: [String]
    /// A longer explanation shown by `ledger help COMMAND`.
    public var discussion: String
    /// The options.
    public var options: [OptionSpec]
    /// Positional arguments allowed: minimum and maximum (nil: unbounded).
    public var positionals: ClosedRange<Int>
    /// The placeholder shown for positionals, e.g. `FILE|-`.
    public var positionalName: String?
    /// Further help after the options (endpoints, rules).
    public var sections: [HelpSection]

    /// Creates a command spec.
    public init(
        name: String, summary: String, usage: [String], discussion: String = "", options: [OptionSpec],
        positionals: ClosedRange<Int> = 0...0, positionalName: String? = nil, sections: [HelpSection] = []
    ) {
        self.name = name
        self.summary = summary
        self.usage = usage
        self.discussion = discussion
        self.options = options
        self.positionals = positionals
        self.positionalName = positionalName
        self.sections = sections
    }

    /// The option with this name, if the command accepts it.
    public func option(named name: String) -> OptionSpec? {
        options.first { $0.name == name }
    }
}

/// The arguments of one invocation, after parsing against a ``CommandSpec``.
public struct ParsedArguments: Sendable, Hashable {
    /// The command name.
    public var command: String
    /// Option values by name, in the order given (flags map to an empty list entry per use).
    public var values: [String: [String]]
    /// Positional arguments in order.
    public var positionals: [String]

    /// Creates parsed arguments.
    public init(command: String, values: [String: [String]] = [:], positionals: [String] = []) {
        self.command = command
        self.values = values
        self.positionals = positionals
    }

    /// The last value of an option.
    public func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable option.
    public func all(_ name: String) -> [String] { values[name] ?? [] }

    /// Whether a flag (or option) was given.
    public func has(_ name: String) -> Bool { values[name] != nil }
}
