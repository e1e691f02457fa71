import LedgerCore
import LedgerJSON
import LedgerService

/// `ledger history`: every record about a subject, in effective-time order.
enum HistoryCommand: LedgerCommand {
    /// `--as-of T`.
    static let asOf = OptionSpec("--as-of", value: "T", "Only records effective at or before T.")
    /// `--known-at K`.
    static let knownAt = OptionSpec("--known-at", value: "K", "Only records appended by K.")
    /// `--html`.
    static let html = OptionSpec("--html", "Write a self-contained HTML page.")

    static let spec = CommandSpec(
        name: "history", summary: "Every record about a subject, in effective-time order.",
        usage: ["history [--data DIR | --store URL] SUBJECT [--as-of T] [--known-at K] [--json | --html]"],
        discussion:
            "--html writes a self-contained page (timeline and device-limit chart) on stdout.",
        options: [SharedOptions.data, SharedOptions.store] + SharedOptions.subject + [
            asOf, knownAt, SharedOptions.json, html,
        ])

    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let query = try context.subject()
        let asOf = try context.instant(Self.asOf)
        let knownAt = try context.instant(Self.knownAt)
        if try context.has(Self.html), context.json {
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
        if try context.has(Self.html) {
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
