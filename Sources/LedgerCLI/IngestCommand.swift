import LedgerAppStore
import LedgerCore
import LedgerJSON
import LedgerService
import LedgerSystem

/// `ledger ingest`: JSON Lines of notification bodies → verified records in the log.
enum IngestCommand {
    static let batchSize = 2048
    static let maxInputBytes = 4 << 30

    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let directory = context.dataDirectory
        let bound = Commands.boundEnvironment(context)
        let verifier = try VerifySettings.verifier(context, boundEnvironment: bound ?? nil)
        VerifySettings.announce(verifier)
        let ledger = try Commands.openWriter(context, environment: verifier.configuration.environment)
        defer { ledger.log.close() }
        let pipeline = IngestPipeline(
            ledger: ledger, verifier: verifier, quarantine: Quarantine(dataDirectory: directory))
        var counts = IngestCounts()
        let inputs = context.arguments.positionals.isEmpty ? ["-"] : context.arguments.positionals
        for input in inputs {
            let bytes = try InputFile.read(input, limit: maxInputBytes)
            let label = "ingest \(input == "-" ? "stdin" : input)"
            try ingest(lines: lines(of: bytes), into: pipeline, label: label, counts: &counts)
        }
        let summary: JSONValue = .object([
            "accepted": .int(counts.accepted), "duplicates": .int(counts.duplicates), "rejected": .int(counts.rejected),
        ])
        Terminal.line(summary.serialized())
        if counts.rejected > 0 {
            Terminal.err("error: \(counts.rejected) rejected; see 'ledger quarantine --data \(directory)'\n")
        }
        return counts.rejected == 0 ? 0 : 1
    }

    /// The non-blank lines of JSON Lines input.
    static func lines(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.split(separator: 0x0A, omittingEmptySubsequences: true).filter { line in
            line.contains { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }
        }
    }

    /// Verifies and appends bodies in batches (one group commit each; each batch verified on every core
    /// while the one before it commits), with a progress bar.
    static func ingest(
        lines: [ArraySlice<UInt8>], into pipeline: IngestPipeline, label: String, counts: inout IngestCounts
    ) throws(CLIError) {
        let progress = Progress(label: label, total: lines.count)
        defer { progress.finish() }
        let batches = stride(from: 0, to: lines.count, by: batchSize).lazy.map { start in
            lines[start..<min(start + batchSize, lines.count)].map { Array($0) }
        }
        var done = 0
        do {
            try pipeline.ingest(batches: batches, threads: onlineProcessorCount) { results in
                for result in results { counts.add(result) }
                done += results.count
                progress.update(done)
            }
        } catch {
            throw CLIError.failure("\(error.message); \(counts.accepted) records were appended before this")
        }
    }
}
