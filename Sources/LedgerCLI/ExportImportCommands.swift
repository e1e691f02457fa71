import LedgerCore
import LedgerJSON
import LedgerService

/// `ledger export` and `ledger import`.
enum ExportImportCommands {
    static func export(_ context: CommandContext) throws(CLIError) -> Int32 {
        let from = try context.integer("--from-seq", in: 1...Int64.max) ?? 1
        let ledger = try Commands.openReader(context)
        defer { ledger.log.close() }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        // Records whose evidence the data directory no longer holds: still exported (with a null signedPayload),
        // but such an export cannot be imported, so the command fails once it has written everything.
        var missingEvidence: [UInt64] = []
        do {
            try ledger.log.forEach(from: UInt64(from)) { record in
                let line = try ledger.exportLine(record)
                if line["evidence"]?["signedPayload"] == .null { missingEvidence.append(record.seq) }
                try line.write(into: &buffer)
                buffer.append(0x0A)
                if buffer.count > 1 << 20 {
                    Terminal.out(String(decoding: buffer, as: UTF8.self))
                    buffer.removeAll(keepingCapacity: true)
                }
            }
        } catch let error as ServiceError {
            throw Commands.failure(error)
        } catch {
            throw CLIError.failure("\(error)")
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

    static func importFile(_ context: CommandContext) throws(CLIError) -> Int32 {
        let bytes = try InputFile.read(context.arguments.positionals[0], limit: 8 << 30)
        var lines: [JSONValue] = []
        for (index, line) in bytes.split(separator: 0x0A).enumerated() where line.contains(where: { $0 > 0x20 }) {
            do {
                lines.append(try JSONValue.parse(Array(line)))
            } catch {
                throw CLIError.failure("line \(index + 1) is not JSON: \(error)")
            }
        }
        let environment = lines.lazy.compactMap { $0["record"]?["environment"]?.string }.first
            .map(LedgerEnvironment.init(rawValue:))
        let ledger = try Commands.openWriter(context, environment: environment)
        defer { ledger.log.close() }
        let progress = Progress(label: "import", total: lines.count)
        let result: (appended: Int, alreadyKnown: Int)
        do {
            // Every line is checked (against the export's own chain hashes too) before anything is appended.
            result = try ledger.importLines(lines) { progress.update($0) }
            progress.finish()
        } catch {
            progress.finish()
            throw Commands.failure(error)
        }
        let summary: JSONValue = .object([
            "appended": .int(result.appended), "alreadyKnown": .int(result.alreadyKnown),
        ])
        Terminal.line(summary.serialized())
        return 0
    }
}
