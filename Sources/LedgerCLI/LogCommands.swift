import LedgerCore
import LedgerCrypto
import LedgerJSON
import LedgerService
import LedgerSystem

/// `ledger verify`, `digest`, `repair` and `rebuild`: the log's integrity and its derived files.
enum LogCommands {
    static func verify(_ context: CommandContext) throws(CLIError) -> Int32 {
        var expected: [UInt8]?
        if let text = context.arguments.value("--expect-head") {
            guard let bytes = Hex.decode(text), bytes.count == 32 else {
                throw CLIError.usage("--expect-head must be 64 hexadecimal characters (a SHA-256)", command: "verify")
            }
            expected = bytes
        }
        let seq = try context.integer("--expect-seq", in: 1...Int64.max).map { UInt64($0) }
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

    static func digest(_ context: CommandContext) throws(CLIError) -> Int32 {
        let ledger = try Commands.openReader(context)
        defer { ledger.close() }
        let head = ledger.head
        let at = Instant(milliseconds: head.seq == 0 ? SystemClock.wallMilliseconds() : ledger.headTime)
        let digest: JSONValue = .object([
            "seq": .integer(Int64(clamping: head.seq)), "head": .string(Hex.encode(head.hash)),
            "at": .string(at.iso8601),
        ])
        if context.json {
            context.printJSON(digest)
        } else {
            Terminal.line("seq \(head.seq)\nhead \(Hex.encode(head.hash))\nat \(at.iso8601)")
        }
        return 0
    }

    static func repair(_ context: CommandContext) throws(CLIError) -> Int32 {
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

    static func rebuild(_ context: CommandContext) throws(CLIError) -> Int32 {
        // A data directory that does not exist has nothing to rebuild: a failure, not a new ledger.
        if try Commands.postgresURL(context) == nil { _ = try Commands.existingDataDirectory(context) }
        let ledger = try Commands.openWriter(context, environment: nil)
        defer { ledger.close() }
        let total = ledger.head.seq
        let progress = Progress(label: "rebuild", total: Int(total))
        do {
            try ledger.rebuildIndexes { done in progress.update(Int(done)) }
        } catch {
            throw CLIError.failure(error.message)
        }
        progress.finish()
        do {
            let projection = try ledger.rebuildProjections { done in progress.update(Int(done)) }
            progress.finish()
            let summary: JSONValue = .object([
                "records": .integer(Int64(clamping: total)), "subjects": .int(ledger.subjectCount),
                "users": .int(projection.users), "subscriptions": .int(projection.subscriptions),
            ])
            if context.json {
                context.printJSON(summary)
            } else {
                Terminal.line(
                    "rebuilt indexes and projections from \(total) records: \(projection.users) users, "
                        + "\(projection.subscriptions) subscriptions")
            }
        } catch {
            throw Commands.failure(error)
        }
        return 0
    }
}
