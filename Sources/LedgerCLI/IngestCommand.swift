import Dispatch
import LedgerAppStore
import LedgerCore
import LedgerJSON
import LedgerService

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
        let pipeline = IngestPipeline(ledger: ledger, verifier: verifier, quarantine: Quarantine(dataDirectory: directory))
        var counts = IngestCounts()
        let inputs = context.arguments.positionals.isEmpty ? ["-"] : context.arguments.positionals
        for input in inputs {
            let bytes = try InputFile.read(input, limit: maxInputBytes)
            let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: true).filter { line in
                line.contains { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }
            }
            let progress = Progress(label: "ingest \(input == "-" ? "stdin" : input)", total: lines.count)
            var start = 0
            while start < lines.count {
                let end = min(start + batchSize, lines.count)
                let bodies = lines[start..<end].map { Array($0) }
                let prepared = prepareInParallel(bodies, pipeline)
                let results: [IngestResult]
                do {
                    results = try pipeline.commit(prepared, bodies: bodies)
                } catch {
                    progress.finish()
                    throw CLIError.failure("\(error.message); \(counts.accepted) records were appended before this")
                }
                for result in results { counts.add(result) }
                start = end
                progress.update(start)
            }
            progress.finish()
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

    /// Verification is the expensive part: spread it over the cores.
    static func prepareInParallel(_ bodies: [[UInt8]], _ pipeline: IngestPipeline) -> [IngestPipeline.Prepared] {
        let slots = PreparedSlots(count: bodies.count)
        DispatchQueue.concurrentPerform(iterations: bodies.count) { index in
            slots.set(index, pipeline.prepare(body: bodies[index]))
        }
        return slots.values()
    }
}

/// Result slots written by index from concurrent workers: each index is written exactly once, and read
/// only after `concurrentPerform` returned, which orders every write before the reads.
final class PreparedSlots: @unchecked Sendable {
    private let base: UnsafeMutablePointer<IngestPipeline.Prepared?>
    private let count: Int

    init(count: Int) {
        self.count = count
        base = .allocate(capacity: max(count, 1))
        base.initialize(repeating: nil, count: count)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    func set(_ index: Int, _ value: IngestPipeline.Prepared) { base[index] = value }

    func values() -> [IngestPipeline.Prepared] { (0..<count).map { base[$0]! } }
}
