import LedgerCore
import LedgerCrypto
import LedgerJSON
import LedgerService

/// `ledger verify`: every record's checksum and the hash chain, optionally against a pinned head.
enum VerifyCommand: LedgerCommand {
    /// `--expect-head HEX`.
    static let expectHead = OptionSpec("--expect-head", value: "HEX", "The head hash pinned earlier.")
    /// `--expect-seq N`.
    static let expectSeq = OptionSpec("--expect-seq", value: "N", "The seq the pinned hash is of (default: the head).")

    static let spec = CommandSpec(
        name: "verify", summary: "Check every record's checksum and the hash chain.",
        usage: ["verify [--data DIR | --store URL] [--expect-head HEX [--expect-seq N]] [--json]"],
        discussion:
            "Also checks that every record decodes as a ledger record, the evidence packs' checksums and that "
            + "every record's evidence is there. Exit 1 naming the first bad segment (or pack) and offset, the "
            + "first record that cannot be read or whose evidence is missing and how many are, or when the head "
            + "differs from --expect-head. "
            + "With --expect-seq N the pinned hash is record N's (the seq `digest` printed with it), so a pin "
            + "still proves nothing up to N was rewritten after the log has grown.",
        options: [
            SharedOptions.data, SharedOptions.store, expectHead, expectSeq, SharedOptions.json,
        ])

    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        var expected: [UInt8]?
        if let text = try context.value(Self.expectHead) {
            guard let bytes = Hex.decode(text), bytes.count == 32 else {
                throw CLIError.usage("--expect-head must be 64 hexadecimal characters (a SHA-256)", command: "verify")
            }
            expected = bytes
        }
        let seq = try context.integer(Self.expectSeq, in: 1...Int64.max).map { UInt64($0) }
        if seq != nil, expected == nil {
            throw CLIError.usage("--expect-seq needs --expect-head (the hash pinned with that seq)", command: "verify")
        }
        let report = try Commands.verify(context, expectHead: expected, expectSeq: seq)
        if context.json {
            var object: JSONObject = [
                "ok": .bool(report.ok), "records": .integer(Int64(clamping: report.records)),
                "headSeq": .integer(Int64(clamping: report.headSeq)), "headHash": .string(Hex.encode(report.headHash)),
                "segments": .int(report.segments), "environment": .string(report.environment),
                "missingEvidence": .integer(Int64(clamping: report.missingEvidence)),
            ]
            if let problem = report.problem {
                object["problem"] = .object([
                    "kind": .string(problem.kind.description), "segment": .string(problem.segment),
                    "offset": .integer(problem.offset), "seq": .integer(problem.seq.map { Int64(clamping: $0) }),
                    "message": .string(problem.message),
                ])
            }
            context.printJSON(.object(object))
        } else {
            Terminal.line("records \(report.records) in \(report.segments) segment(s)")
            Terminal.line("head seq \(report.headSeq)")
            Terminal.line("head hash \(Hex.encode(report.headHash))")
            if report.missingEvidence > 0 { Terminal.line("missing evidence \(report.missingEvidence) record(s)") }
        }
        if let problem = report.problem {
            Terminal.err("error: \(problem.message)\n")
            return 1
        }
        return 0
    }
}
