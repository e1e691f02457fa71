import LedgerJSON
import LedgerService

/// `ledger export`: the log as JSON Lines, each line a record with its evidence (what `ledger import` reads).
enum ExportCommand: LedgerCommand {
    /// `--from-seq N`.
    static let fromSeq = OptionSpec("--from-seq", value: "N", "Start at sequence N (default 1).")

    static let spec = CommandSpec(
        name: "export", summary: "Write the log as JSON Lines.",
        usage: ["export [--data DIR | --store URL] [--from-seq N]"],
        options: [SharedOptions.data, SharedOptions.store, fromSeq])

    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let from = try context.integer(Self.fromSeq, in: 1...Int64.max) ?? 1
        let ledger = try Commands.openReader(context)
        defer { ledger.close() }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        // Records whose evidence the data directory no longer holds: still exported (with a null signedPayload),
        // but such an export cannot be imported, so the command fails once it has written everything.
        var missingEvidence: [UInt64] = []
        do {
            try ledger.forEachLogRecord(from: UInt64(from)) { record in
                let line = try ledger.exportLine(record)
                if line["evidence"]?["signedPayload"] == .null { missingEvidence.append(record.seq) }
                line.write(into: &buffer)
                buffer.append(0x0A)
                if buffer.count > 1 << 20 {
                    Terminal.out(String(decoding: buffer, as: UTF8.self))
                    buffer.removeAll(keepingCapacity: true)
                }
            }
        } catch {
            throw Commands.failure(error)
        }
        Terminal.out(String(decoding: buffer, as: UTF8.self))
        if let first = missingEvidence.first {
            Terminal.err(
                "error: \(missingEvidence.count) record(s) reference evidence missing from the data directory, first "
                    + "at seq \(first) (exported with a null signedPayload; `ledger import` refuses such lines). "
                    + "Restore the evidence packs from a backup\n")
            return 1
        }
        return 0
    }
}
