import LedgerCore
import LedgerJSON
import LedgerService

/// `ledger history`: every record about a subject, in effective-time order.
enum HistoryCommand {
    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let query = try context.subject()
        let asOf = try context.instant("--as-of")
        let knownAt = try context.instant("--known-at")
        if context.json && context.arguments.has("--html") {
            throw CLIError.usage("choose one of --json and --html", command: "history")
        }
        let ledger = try Commands.openReader(context)
        defer { ledger.close() }
        let entries: [LedgerEntry]
        let voids: [UInt64: UInt64]
        do {
            (entries, voids) = try ledger.historyAndVoids(of: query, asOf: asOf, knownAt: knownAt)
        } catch {
            throw Commands.failure(error)
        }
        if context.json {
            context.printJSON(LedgerEntry.historyJSON(entries, voids: voids))
            return 0
        }
        if context.arguments.has("--html") {
            do {
                Terminal.out(try HistoryPage.render(ledger: ledger, query: query, entries: entries, knownAt: knownAt))
            } catch {
                throw Commands.failure(error)
            }
            return 0
        }
        Terminal.line("SEQ      EFFECTIVE                 RECORDED                  KIND                 DETAIL")
        for entry in entries {
            let record = entry.record
            var detail = [record.notification?.type, record.notification?.subtype].compactMap { $0 }.joined(
                separator: "/")
            if let product = record.transaction?.productId { detail += " \(product)" }
            if let correction = record.correction {
                detail += " correction by \(correction.operatorName): \(correction.reason)"
            }
            if let link = record.link { detail += " link by \(link.operatorName): \(link.reason)" }
            if let void = record.void {
                detail += " void of record \(void.seq) by \(void.operatorName): \(void.reason)"
            }
            if let void = voids[entry.seq] { detail += " (voided by record \(void))" }
            Terminal.line(
                String(entry.seq).padding(to: 9) + entry.effectiveAt.iso8601.padding(to: 26)
                    + entry.recordedAt.iso8601.padding(to: 26) + entry.kind.padding(to: 21) + detail)
        }
        if entries.isEmpty { Terminal.line("(no records)") }
        return 0
    }
}
