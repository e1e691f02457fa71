import LedgerAppStore
import LedgerCore
import LedgerJSON
import LedgerService
import LedgerSystem

/// `ledger ingest`: JSON Lines of notification bodies → verified records in the log.
enum IngestCommand: LedgerCommand {
    static let spec = CommandSpec(
        name: "ingest", summary: "Verify App Store notifications and append them to the log.",
        usage: ["ingest [VERIFY FLAGS] [--data DIR | --store URL] [--json] [FILE|-]..."],
        discussion: """
            Input is JSON Lines: each line a request body {"signedPayload":"…"} exactly as Apple POSTs it \
            (blank lines ignored). Each line is verified and appended durably as one record, recognised as a \
            duplicate (same notificationUUID), or rejected into the quarantine with its reason. Prints \
            {"accepted":N,"duplicates":N,"rejected":N}. Exit 0 when nothing was rejected, else 1. A FILE that \
            cannot be opened is refused before anything is written.
            """,
        options: SharedOptions.verify + [
            SharedOptions.data, SharedOptions.store, SharedOptions.json,
        ],
        positionals: 0...Int.max, positionalName: "FILE|-")

    static let batchSize = 2048
    /// The longest input line read whole: a body over 1 MiB is rejected (and quarantined) by the pipeline; a line
    /// longer than this is read through without being held and rejected the same way from its first 1 MiB, its
    /// size and its SHA-256, and the lines after it are ingested.
    static let maxLineBytes = 64 << 20

    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        HeapTuning.keepHeapForBatches()
        let directory = context.dataDirectory
        let verifier = try VerifySettings.verifier(context, bound: BoundIdentity.of(context), writes: true)
        let inputs = context.arguments.positionals.isEmpty ? ["-"] : context.arguments.positionals
        // An input that cannot be opened is refused before the data directory is opened (or created).
        try InputFile.checkReadable(inputs)
        VerifySettings.announce(verifier)
        let ledger = try Commands.openWriter(
            context, environment: verifier.configuration.environment, app: VerifySettings.app(verifier))
        defer { ledger.close() }
        let pipeline = IngestPipeline(
            ledger: ledger, verifier: verifier, quarantine: Quarantine(dataDirectory: directory))
        var counts = IngestCounts()
        // An input that cannot be read to its end stops the run there; the counts of what was done before it
        // are printed all the same, then the error.
        var stopped: CLIError?
        for input in inputs {
            do throws(CLIError) {
                let lines = try LineBatches(path: input, batchSize: batchSize, lineLimit: maxLineBytes)
                try ingest(
                    lines: lines, into: pipeline, label: "ingest \(input == "-" ? "stdin" : input)", counts: &counts)
            } catch {
                stopped = error
                break
            }
        }
        let summary: JSONValue = .object([
            "accepted": .int(counts.accepted), "duplicates": .int(counts.duplicates), "rejected": .int(counts.rejected),
        ])
        Terminal.line(summary.serialized())
        if let stopped { throw stopped }
        return Commands.rejectedStatus(counts.rejected, context)
    }

    /// Verifies and appends the input's lines in batches as they are read (one group commit each; each batch
    /// verified on every core while the one before it commits), with a progress bar over the input's bytes.
    /// A line over ``maxLineBytes`` is rejected into the quarantine without being held, and the lines after it
    /// follow. A read failure stops the input there: the batches before it stay appended.
    static func ingest(
        lines: LineBatches, into pipeline: IngestPipeline, label: String, counts: inout IngestCounts
    ) throws(CLIError) {
        let progress = Progress(label: label, total: Int(lines.totalBytes ?? 0), unit: .bytes)
        defer { progress.finish() }
        // The over-long lines read since the last commit; a quarantine that cannot be written ends the input,
        // as it stops a batch's commit.
        func rejectOversized() {
            for line in lines.takeOversized() {
                do {
                    counts.add(
                        try pipeline.rejectUnread(
                            prefix: line.prefix, size: line.size, sha256: line.sha256, message: line.reason))
                } catch {
                    lines.end(with: CLIError.failure(error.message))
                    return
                }
            }
        }
        do {
            try pipeline.ingest(batches: lines, threads: onlineProcessorCount) { results in
                for result in results { counts.add(result) }
                rejectOversized()
                progress.update(Int(lines.consumedBytes))
            }
        } catch {
            throw CLIError.failure("\(error.message); \(counts.accepted) records were appended before this")
        }
        rejectOversized()
        if let failure = lines.failure {
            throw CLIError.failure(
                "\(failure.message); the \(counts.accepted) records accepted before it stay appended (ingesting the"
                    + " same input again skips them as duplicates)")
        }
    }
}
