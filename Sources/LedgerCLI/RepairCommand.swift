import LedgerCrypto
import LedgerJSON
import LedgerService

/// `ledger repair`: cuts a torn tail after the last valid record, keeping it aside.
enum RepairCommand: LedgerCommand {
    static let spec = CommandSpec(
        name: "repair", summary: "Cut a torn tail after the last valid record (kept aside).",
        usage: ["repair [--data DIR | --store URL]"],
        discussion:
            "Never drops a valid record; refuses (exit 1, explaining) when damage is not at the tail.",
        options: [SharedOptions.data, SharedOptions.store, SharedOptions.json])

    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let report = try Commands.repair(context)
        let cut = report.cut.map { "\($0)" } ?? "nothing to cut: the log ends on a valid record"
        if context.json {
            context.printJSON(
                .object([
                    "cut": report.cut.map {
                        .object([
                            "segment": .string($0.segment), "offset": .integer($0.offset),
                            "bytes": .integer($0.bytesCut), "savedAs": .string($0.savedAs),
                        ])
                    } ?? .null,
                    "evidenceCut": report.evidenceCut.map {
                        .object([
                            "pack": .string($0.pack), "offset": .integer($0.offset),
                            "bytes": .integer($0.bytesCut), "savedAs": .string($0.savedAs),
                        ])
                    } ?? .null,
                    "headSeq": .integer(Int64(clamping: report.headSeq)),
                    "headHash": .string(Hex.encode(report.headHash)),
                ]))
        } else {
            Terminal.line(cut)
            if let evidenceCut = report.evidenceCut { Terminal.line("\(evidenceCut)") }
            Terminal.line("head seq \(report.headSeq), head hash \(Hex.encode(report.headHash))")
        }
        return 0
    }
}
