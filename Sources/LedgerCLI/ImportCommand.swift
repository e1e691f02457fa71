import LedgerCore
import LedgerCrypto
import LedgerJSON
import LedgerService

/// `ledger import`: appends an export, idempotently.
enum ImportCommand: LedgerCommand {
    /// `--batch N`.
    static let batch = OptionSpec(
        "--batch", value: "N", "Records appended at once (default 1024; each batch is held in memory).")

    static let spec = CommandSpec(
        name: "import", summary: "Append an export, idempotently.",
        usage: ["import [--data DIR | --store URL] [--batch N] FILE|-"],
        discussion:
            "Reads the export twice, a batch at a time (standard input is spooled to $TMPDIR): first every line is "
            + "checked and nothing appended, then the records are appended.",
        options: [SharedOptions.data, SharedOptions.store, batch, SharedOptions.json],
        positionals: 1...1, positionalName: "FILE|-")

    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        try importFile(context)
    }

    /// The longest export line taken (a line carries its record's signed payload, which the webhook bounds at
    /// 1 MiB, and the record twice more).
    static let maxImportLineBytes = 8 << 20

    /// Imports an export in two streaming passes, so that its size is bounded by neither memory nor a limit: the
    /// first parses and checks every line (``Ledger/ImportCheck``) and appends nothing, the second appends the
    /// lines a batch at a time. Standard input is spooled to a temporary file during the first pass for the second
    /// to read; a file is read twice, each batch's bytes checked against the first pass's digest of them before
    /// it is appended (a file changed in between stops the import there, with what was appended said).
    /// `secondPass` reads the second pass from another file (tests: an export changed between the passes).
    static func importFile(_ context: CommandContext, secondPass: String? = nil) throws(CLIError) -> Int32 {
        let input = context.arguments.positionals[0]
        let batchSize = Int(try context.integer(Self.batch, in: 1...1 << 20) ?? Int64(Ledger.importBatchSize))
        let spool = input == "-" ? try Spool(label: "import", in: context.temporaryDirectory) : nil
        defer { spool?.remove() }
        let checked = try checkPass(context, input: input, batchSize: batchSize, spool: spool)
        let ledger: Ledger
        if let opened = checked.ledger {
            ledger = opened
        } else {
            ledger = try Commands.openWriter(context, environment: nil)
        }
        defer { ledger.close() }
        let second = try LineBatches(
            path: secondPass ?? spool?.path ?? input, batchSize: batchSize, lineLimit: maxImportLineBytes)
        let appended = try appendPass(second, into: ledger, input: input, checked: checked)
        let summary: JSONValue = .object([
            "appended": .int(appended), "alreadyKnown": .int(checked.lines - appended),
        ])
        Terminal.line(summary.serialized())
        return 0
    }

    /// What the first pass of an import found: the ledger it opened for writing at the first line (nil for an
    /// export without lines), how many lines it checked, and the SHA-256 of each batch's bytes.
    private struct CheckedExport {
        var ledger: Ledger?
        var lines = 0
        var digests: [[UInt8]] = []
    }

    /// The first pass: parses and checks every line, spooling it when `spool` is given; appends nothing. Opens
    /// the data directory for writing at the first line, bound to the environment of its record.
    private static func checkPass(_ context: CommandContext, input: String, batchSize: Int, spool: Spool?)
        throws(CLIError) -> CheckedExport
    {
        var checked = CheckedExport()
        var check: Ledger.ImportCheck?
        let lines = try LineBatches(path: input, batchSize: batchSize, lineLimit: maxImportLineBytes)
        let progress = Progress(label: "import: checking", total: Int(lines.totalBytes ?? 0), unit: .bytes)
        defer { progress.finish() }
        do throws(CLIError) {
            for batch in lines {
                try checkRead(lines, input)
                for line in batch {
                    checked.lines += 1
                    let json = try parse(line, number: checked.lines)
                    let ledger: Ledger
                    if let opened = checked.ledger {
                        ledger = opened
                    } else {
                        let environment = json["record"]?["environment"]?.string
                            .map(LedgerEnvironment.init(rawValue:))
                        ledger = try Commands.openWriter(context, environment: environment)
                        checked.ledger = ledger
                        check = ledger.importCheck()
                    }
                    do {
                        try check?.check(try ledger.importItem(json, number: checked.lines))
                    } catch {
                        throw Commands.failure(error)
                    }
                    try spool?.append(line)
                }
                checked.digests.append(digest(batch))
                progress.update(Int(lines.consumedBytes))
            }
            try checkRead(lines, input)
            try spool?.flush()
        } catch {
            checked.ledger?.close()  // the caller closes it only when the pass succeeds
            throw error
        }
        return checked
    }

    /// The second pass: appends the lines a batch at a time, each batch's bytes first compared with what the first
    /// pass checked. Returns how many records were appended.
    private static func appendPass(_ lines: LineBatches, into ledger: Ledger, input: String, checked: CheckedExport)
        throws(CLIError) -> Int
    {
        let progress = Progress(label: "import: appending", total: checked.lines)
        defer { progress.finish() }
        var appended = 0
        var done = 0
        for (index, batch) in lines.enumerated() {
            guard index < checked.digests.count, digest(batch) == checked.digests[index] else {
                throw changed(input, appended: appended, lines: done)
            }
            var items: [Ledger.ExportItem] = []
            items.reserveCapacity(batch.count)
            for line in batch {
                done += 1
                let json = try parse(line, number: done)
                do {
                    items.append(try ledger.importItem(json, number: done))
                } catch {
                    throw Commands.failure(error)
                }
            }
            do {
                appended += try ledger.appendImported(items)
            } catch {
                throw Commands.failure(error)
            }
            progress.update(done)
        }
        try checkRead(lines, input)
        guard done == checked.lines else { throw changed(input, appended: appended, lines: done) }
        return appended
    }

    /// The SHA-256 of a batch's lines, each followed by a newline.
    private static func digest(_ batch: [[UInt8]]) -> [UInt8] {
        var digest = SHA256()
        for line in batch {
            digest.update(line)
            digest.update([0x0A])
        }
        return digest.finalize()
    }

    /// Line `number` of an export, parsed.
    private static func parse(_ line: [UInt8], number: Int) throws(CLIError) -> JSONValue {
        do {
            return try JSONValue.parse(line)
        } catch {
            throw CLIError.failure("line \(number) is not JSON: \(error). Nothing was imported")
        }
    }

    /// Fails when a pass over the input ended early (a read failure) or set an over-long line aside.
    private static func checkRead(_ lines: LineBatches, _ input: String) throws(CLIError) {
        if let failure = lines.failure { throw failure }
        if let oversized = lines.takeOversized().first {
            throw CLIError.failure(
                "line \(oversized.number) of \(input) is \(oversized.size) bytes, over the \(maxImportLineBytes)-byte "
                    + "limit of an export line. Nothing was imported")
        }
    }

    /// The error for an input that changed between the two passes.
    private static func changed(_ input: String, appended: Int, lines: Int) -> CLIError {
        CLIError.failure(
            "\(input) changed while it was imported: its first \(lines) lines were checked and imported "
                + "(\(appended) records appended), the rest was not. Import the export again to finish")
    }
}
