import LedgerService

/// `ledger void`: takes one record's facts out of every answer (appends a void record).
enum VoidCommand: LedgerCommand {
    /// `--seq N`.
    static let seq = OptionSpec("--seq", value: "N", "The record to void.")

    static let spec = CommandSpec(
        name: "void", summary: "Take one record's facts out of every answer (appends a void record).",
        usage: ["void --seq N --reason TEXT --operator NAME [--data DIR | --store URL] [--json]"],
        discussion: """
            From the void's recording time on, record N counts in no answer (state, history's fold, \
            projections); --known-at before the void still shows what was believed then. Record N stays in \
            the log, marked voidedBySeq in history. Voiding the same record again appends nothing (exit 0); \
            a seq of 0 or beyond the head, or a record that is itself a void, is refused (exit 1).
            """,
        options: [SharedOptions.data, SharedOptions.store, seq] + SharedOptions.operatorFields + [
            SharedOptions.json
        ])

    /// `ledger void --seq N --reason TEXT --operator NAME`: appends a void of record N (see `ledger help void`).
    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        guard try context.value(Self.seq) != nil else {
            throw CLIError.usage("missing --seq N (the record to void)", command: "void")
        }
        let number = try context.integer(Self.seq, in: 0...Int64.max) ?? 0
        let (reason, name) = try OperatorCommands.operatorFields(context)
        let ledger = try Commands.openWriter(context, environment: nil)
        defer { ledger.close() }
        do {
            let outcome = try ledger.void(seq: UInt64(number), reason: reason, operatorName: name)
            if !context.json, case .duplicate(let void) = outcome {
                Terminal.line("record \(number) was already voided by record \(void); nothing appended")
            } else {
                OperatorCommands.report(outcome, context)
            }
        } catch {
            throw Commands.failure(error)
        }
        return 0
    }
}
