import Dispatch
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

    /// Verifies and appends bodies in batches (one group commit each), with a progress bar.
    static func ingest(
        lines: [ArraySlice<UInt8>], into pipeline: IngestPipeline, label: String, counts: inout IngestCounts
    ) throws(CLIError) {
        let progress = Progress(label: label, total: lines.count)
        defer { progress.finish() }
        var start = 0
        while start < lines.count {
            let end = min(start + batchSize, lines.count)
            let bodies = lines[start..<end].map { Array($0) }
            let prepared = prepareInParallel(bodies, pipeline)
            do {
                for result in try pipeline.commit(prepared, bodies: bodies) { counts.add(result) }
            } catch {
                throw CLIError.failure("\(error.message); \(counts.accepted) records were appended before this")
            }
            start = end
            progress.update(start)
        }
    }

    /// Verification is the expensive part: spread it over the cores.
    static func prepareInParallel(_ bodies: [[UInt8]], _ pipeline: IngestPipeline) -> [IngestPipeline.Prepared] {
        let slots = ResultSlots<IngestPipeline.Prepared>(count: bodies.count)
        DispatchQueue.concurrentPerform(iterations: bodies.count) { index in
            slots.set(index, pipeline.prepare(body: bodies[index]))
        }
        return slots.values().map { $0! }
    }
}
