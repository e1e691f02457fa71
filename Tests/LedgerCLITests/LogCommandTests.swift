import LedgerJSON
import LedgerLog
import LedgerStore
import LedgerSystem
import LedgerTesting
import Testing

@testable import LedgerCLI

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct LogCommandTests {
    let workspace = Workspace()

    func ingest(_ count: Int) throws {
        var lines: [String] = []
        for i in 0..<count {
            let signed = try workspace.pki.signedNotification(
                type: "DID_RENEW", uuid: TestPKI.Payloads.uuid(100 + i),
                transaction: TestPKI.Payloads.transaction(transactionId: "30000000000\(1000 + i)"))
            lines.append(String(decoding: TestPKI.body(signed), as: UTF8.self))
        }
        let result = ledger(
            ["ingest", "--data", workspace.data] + workspace.verifyFlags + [workspace.file("in.jsonl", lines)])
        #expect(result.code == 0, "\(result.err)")
    }

    @Test func verifyDigestAndExpectHead() throws {
        try ingest(5)
        let verify = ledger(["verify", "--data", workspace.data, "--json"])
        #expect(verify.code == 0)
        #expect(verify.json?["records"] == 5)
        let digest = try #require(ledger(["digest", "--data", workspace.data, "--json"]).json)
        #expect(digest["seq"] == 5)
        let head = try #require(digest["head"]?.string)
        #expect(verify.json?["headHash"]?.string == head)
        #expect(ledger(["verify", "--data", workspace.data, "--expect-head", head]).code == 0)
        let wrong = String(repeating: "0", count: 64)
        #expect(ledger(["verify", "--data", workspace.data, "--expect-head", wrong]).code == 1)
        #expect(ledger(["verify", "--data", workspace.data, "--expect-head", "xyz"]).code == 64)
    }

    @Test func aPinStillHoldsAfterTheLogGrowsWhenItsSeqIsGiven() throws {
        try ingest(2)
        let digest = try #require(ledger(["digest", "--data", workspace.data, "--json"]).json)
        let pinned = try #require(digest["head"]?.string)
        #expect(digest["seq"] == 2)
        try ingest(4)  // two more records
        let verify = ["verify", "--data", workspace.data, "--expect-head", pinned]
        let atHead = ledger(verify)
        #expect(atHead.code == 1, "the head moved on")
        #expect(atHead.err.contains("records were appended since it was pinned (give its seq with --expect-seq)"))
        #expect(ledger(verify + ["--expect-seq", "2"]).code == 0, "nothing up to record 2 was rewritten")
        #expect(ledger(verify + ["--expect-seq", "3"]).code == 1)
        #expect(ledger(verify + ["--expect-seq", "9"]).code == 1, "no such record")
        #expect(ledger(["verify", "--data", workspace.data, "--expect-seq", "2"]).code == 64)
    }

    @Test func exportThenImportReproducesTheHeadAndIsIdempotent() throws {
        try ingest(4)
        let export = ledger(["export", "--data", workspace.data])
        #expect(export.code == 0)
        let file = workspace.directory.path + "/export.jsonl"
        write(file, export.out)
        let copy = workspace.directory.path + "/copy"
        let first = ledger(["import", "--data", copy, file])
        #expect(first.code == 0, "\(first.err)")
        #expect(first.json == .object(["appended": 4, "alreadyKnown": 0]))
        let second = ledger(["import", "--data", copy, file])
        #expect(second.json == .object(["appended": 0, "alreadyKnown": 4]))
        let original = ledger(["digest", "--data", workspace.data, "--json"]).json
        let imported = ledger(["digest", "--data", copy, "--json"]).json
        #expect(original?["head"] == imported?["head"])
        #expect(ledger(["verify", "--data", copy]).code == 0)
    }

    @Test func anExportImportsABatchAtATimeAfterEveryLineIsChecked() throws {
        try ingest(5)
        let lines = ledger(["export", "--data", workspace.data]).out.split(separator: "\n").map(String.init)
        let file = workspace.file("export.jsonl", [lines[0], "", lines[1]] + lines[2...])
        let copy = workspace.directory.path + "/copy"
        let first = ledger(["import", "--data", copy, "--batch", "2", file])
        #expect(first.json == .object(["appended": 5, "alreadyKnown": 0]), "\(first.err)")
        #expect(
            ledger(["import", "--data", copy, "--batch", "3", file]).json
                == .object(["appended": 0, "alreadyKnown": 5]))
        #expect(
            ledger(["digest", "--data", copy, "--json"]).json?["head"]
                == ledger(["digest", "--data", workspace.data, "--json"]).json?["head"])
        // A bad line in the last batch: checked before the first batch is appended.
        var altered = lines
        altered[4] = altered[4].replacing(#""subjectKeys":["#, with: #""subjectKeys":["u:1","#)
        let refused = workspace.directory.path + "/refused"
        let result = ledger(["import", "--data", refused, "--batch", "1", workspace.file("altered.jsonl", altered)])
        #expect(result.code == 1)
        #expect(result.err.contains("line 5: the subjectKeys are not the record's own"), "\(result.err)")
        #expect(ledger(["digest", "--data", refused, "--json"]).json?["seq"] == 0, "nothing imported")
        #expect(ledger(["import", "--data", copy, "--batch", "0", file]).code == 64)
    }

    @Test func anExportImportsFromStandardInputThroughASpoolItRemoves() throws {
        try ingest(3)
        let file = workspace.directory.path + "/export.jsonl"
        write(file, ledger(["export", "--data", workspace.data]).out)
        let spools = workspace.directory.path + "/tmp"
        #expect(mkdir(spools, 0o700) == 0)
        // Standard input is the export for the length of the command (no other test reads it).
        let saved = dup(0)
        let input = open(file, O_RDONLY)
        #expect(saved >= 0 && input >= 0 && dup2(input, 0) == 0)
        close(input)
        let copy = workspace.directory.path + "/copy"
        let result = ledger(["import", "--data", copy, "--batch", "2", "-"], environment: ["TMPDIR": spools])
        dup2(saved, 0)
        close(saved)
        #expect(result.json == .object(["appended": 3, "alreadyKnown": 0]), "\(result.err)")
        #expect(
            ledger(["digest", "--data", copy, "--json"]).json?["head"]
                == ledger(["digest", "--data", workspace.data, "--json"]).json?["head"])
        let left = try PosixFileSystem().readDirectory(spools)
        #expect(left.isEmpty, "the spool is removed: \(left)")
    }

    @Test func anExportThatChangesBetweenTheTwoPassesStopsWhereItChanged() throws {
        try ingest(4)
        let lines = ledger(["export", "--data", workspace.data]).out.split(separator: "\n").map(String.init)
        var altered = lines
        altered[3] = altered[3].replacing(#""subjectKeys":["#, with: #""subjectKeys":["u:1","#)
        let copy = workspace.directory.path + "/copy"
        let arguments = ["import", "--data", copy, "--batch", "2", workspace.file("export.jsonl", lines)]
        let context = try CommandContext(arguments: LedgerMain.parser.parse(arguments), environment: [:])
        // The second pass reads another text, whose second batch differs from the one the first pass checked.
        let capture = OutputCapture()
        let result = Terminal.$capture.withValue(capture) {
            Result { () throws(CLIError) in
                try ImportCommand.importFile(context, secondPass: workspace.file("altered.jsonl", altered))
            }
        }
        #expect(throws: CLIError.self) { try result.get() }
        guard case .failure(let error) = result else { return }
        #expect(
            error.message.contains(
                "changed while it was imported: its first 2 lines were checked and imported (2 records appended)"),
            "\(error.message)")
        #expect(ledger(["digest", "--data", copy, "--json"]).json?["seq"] == 2)
        #expect(ledger(["verify", "--data", copy]).code == 0)
    }

    @Test func anExportOfRecordsWhoseEvidenceIsMissingFails() throws {
        try ingest(3)
        #expect(unlink(workspace.data + "/evidence/pack-00000001") == 0)
        let export = ledger(["export", "--data", workspace.data])
        #expect(export.code == 1, "an export that import refuses must not succeed")
        #expect(export.err.contains("3 record(s) reference evidence missing from the data directory, first at seq 1"))
        #expect(export.out.split(separator: "\n").count == 3, "every record is still written")
    }

    @Test func anExportAlteredAfterItWasWrittenImportsNothing() throws {
        try ingest(4)
        let export = ledger(["export", "--data", workspace.data]).out
        var lines = export.split(separator: "\n").map(String.init)
        let time = try #require(JSONValue.parse(Array(lines[2].utf8))["recordedAtMs"]?.int64)
        var retimed = lines
        retimed[2] = retimed[2].replacing("\"recordedAtMs\":\(time)", with: "\"recordedAtMs\":\(time + 1)")
        #expect(retimed[2] != lines[2])
        // Another record's payload under this line's keys: it decodes, but is not the line's record.
        let payloads = try lines.map { try #require(JSONValue.parse(Array($0.utf8))["payload"]?.string) }
        var swapped = lines
        swapped[3] = swapped[3].replacing(payloads[3], with: payloads[1])
        // A record indexed under another user.
        var reindexed = lines
        reindexed[1] = reindexed[1].replacing(#""subjectKeys":["#, with: #""subjectKeys":["u:1","#)
        // The same retimed line with its seq and hash deleted, so that there is nothing to compare it with.
        var unhashed = retimed
        let members = try #require(JSONValue.parse(Array(retimed[2].utf8)).object)
        unhashed[2] = JSONValue.object(JSONObject(members.filter { $0.key != "hash" && $0.key != "seq" })).serialized()
        // A line deleted from the middle: the records after it would be appended renumbered, the export's chain
        // silently left.
        var gapped = lines
        gapped.remove(at: 1)
        for (name, altered, error) in [
            ("gapped", gapped, "line 2: the export jumps to record 3 where record 2 comes next"),
            ("retimed", retimed, "line 3: record 3 does not hash to the export's hash"),
            ("unhashed", unhashed, "line 3 is not an export line: it needs idempotencyKey, payload, recordedAtMs, seq"),
            ("swapped", swapped, "line 4: the idempotencyKey is not the record's own"),
            ("reindexed", reindexed, "line 2: the subjectKeys are not the record's own"),
        ] {
            let file = workspace.file("\(name).jsonl", altered)
            let copy = workspace.directory.path + "/copy-\(name)"
            let result = ledger(["import", "--data", copy, file])
            #expect(result.code == 1, "\(name)")
            #expect(result.err.contains(error), "\(name): \(result.err)")
            #expect(ledger(["digest", "--data", copy, "--json"]).json?["seq"] == 0, "\(name): nothing imported")
        }
        // An honest partial export continues a copy holding the records before it.
        let copy = workspace.directory.path + "/copy-partial"
        lines.removeLast(2)
        #expect(ledger(["import", "--data", copy, workspace.file("first.jsonl", lines)]).code == 0)
        let rest = ledger(["export", "--data", workspace.data, "--from-seq", "3"]).out
        let result = ledger(["import", "--data", copy, workspace.file("rest.jsonl", [rest])])
        #expect(result.json == .object(["appended": 2, "alreadyKnown": 0]), "\(result.err)")
        #expect(
            ledger(["digest", "--data", copy, "--json"]).json?["head"]
                == ledger(["digest", "--data", workspace.data, "--json"]).json?["head"])
    }

    @Test func historyListsTheRecordsWithTheirTimes() throws {
        try ingest(3)
        let result = ledger(["history", "--data", workspace.data, "--user", "42", "--json"])
        #expect(result.code == 0, "\(result.err)")
        let entries = try #require(result.json?.array)
        #expect(entries.count == 3)
        for key in [
            "seq", "recordedAt", "effectiveAt", "kind", "notificationType", "subtype", "notificationUUID",
            "originalTransactionId", "transactionId", "productId",
        ] {
            #expect(entries.allSatisfy { $0[key] != nil }, "missing \(key)")
        }
        #expect(entries.first?["kind"] == "renewal")
        let html = ledger(["history", "--data", workspace.data, "--user", "42", "--html"])
        #expect(html.code == 0)
        #expect(html.out.hasPrefix("<!doctype html>"))
        #expect(html.out.contains("<svg"))
    }

    @Test func theHistoryPageDrawsRecordsAtTheEndsOfTime() throws {
        // A period from the first millisecond a 64-bit count holds to the last: the chart's arithmetic is in
        // doubles, and the page is drawn.
        let transaction = TestPKI.Payloads.transaction(purchaseDate: .min, expiresDate: .max)
        let signed = try workspace.pki.signedNotification(type: "SUBSCRIBED", transaction: transaction)
        let file = workspace.file("in.jsonl", [String(decoding: TestPKI.body(signed), as: UTF8.self)])
        #expect(ledger(["ingest", "--data", workspace.data] + workspace.verifyFlags + [file]).code == 0)
        let html = ledger(["history", "--data", workspace.data, "--user", "42", "--html"])
        #expect(html.code == 0, "\(html.err)")
        #expect(html.out.contains("<svg"))
        #expect(ledger(["state", "--data", workspace.data, "--user", "42", "--json"]).json?["deviceLimit"] == 3)
    }

    /// The offset of each entry of an evidence pack (56-byte headers, the body's length at byte 8).
    func entryOffsets(_ pack: [UInt8]) -> [Int] {
        var offsets: [Int] = []
        var offset = 0
        while offset + 56 <= pack.count {
            offsets.append(offset)
            let length = (0..<4).reduce(0) { $0 | Int(pack[offset + 8 + $1]) << (8 * $1) }
            offset += 56 + length
        }
        return offsets
    }

    /// The audit's repro: a byte flipped near the end of the last pack, in the evidence record 3 refers to. The
    /// writer synced it before that record, so this is damage: opening for write cuts nothing and fails naming the
    /// pack, the offset and the record; verify reports it as damage.
    @Test func evidenceARecordRefersToIsNeverCutAsATornTail() throws {
        try ingest(3)
        let pack = workspace.data + "/evidence/pack-00000001"
        var bytes = readFile(pack)
        let last = try #require(entryOffsets(bytes).last)
        bytes[bytes.count - 100] ^= 0x01
        write(pack, bytes: bytes)
        let empty = workspace.file("empty.jsonl", [])
        for command in [
            ["ingest", "--data", workspace.data] + workspace.verifyFlags + [empty],
            ["repair", "--data", workspace.data],
        ] {
            let result = ledger(command)
            #expect(result.code == 1, "\(command[0]): \(result.err)")
            #expect(result.err.contains("error: evidence pack \(pack) is damaged at byte \(last)"), "\(result.err)")
            #expect(result.err.contains("record 3 refers to it"), "\(result.err)")
            #expect(!result.err.contains("recovered:"))
            #expect(readFile(pack) == bytes, "nothing was cut")
        }
        let verify = ledger(["verify", "--data", workspace.data, "--json"])
        #expect(verify.code == 1)
        #expect(verify.json?["problem"]?["kind"] == "damagedEvidence")
        #expect(verify.json?["problem"]?["offset"] == .integer(Int64(last)))
        #expect(verify.json?["problem"]?["seq"] == 3)
        #expect(!verify.err.contains("no record refers to it"))
    }

    /// Bytes after the last entry that no record refers to (a crash mid-write) are cut, and the CLI says so.
    @Test func aTornEvidenceTailIsCutAndReported() throws {
        try ingest(2)
        let pack = workspace.data + "/evidence/pack-00000001"
        let bytes = readFile(pack)
        write(pack, bytes: bytes + Array(bytes[0..<30]))
        let verify = ledger(["verify", "--data", workspace.data, "--json"])
        #expect(verify.code == 1)
        #expect(verify.json?["problem"]?["kind"] == "tornTail")
        let ingested = ledger(["ingest", "--data", workspace.data] + workspace.verifyFlags + [workspace.file("e", [])])
        #expect(ingested.code == 0, "\(ingested.err)")
        #expect(
            ingested.err.contains(
                "recovered: cut 30 bytes of torn tail from evidence pack pack-00000001 at byte \(bytes.count)"),
            "\(ingested.err)")
        #expect(readFile(pack) == bytes)
        #expect(ledger(["verify", "--data", workspace.data]).code == 0)
    }

    /// Evidence the records refer to, deleted: verify used to pass; it now fails naming the first record and the
    /// count.
    @Test func verifyFailsWhenEvidenceRecordsReferToIsMissing() throws {
        try ingest(3)
        #expect(ledger(["verify", "--data", workspace.data, "--json"]).json?["missingEvidence"] == 0)
        #expect(unlink(workspace.data + "/evidence/pack-00000001") == 0)
        let verify = ledger(["verify", "--data", workspace.data, "--json"])
        #expect(verify.code == 1)
        #expect(verify.json?["ok"] == false)
        #expect(verify.json?["records"] == 3)
        #expect(verify.json?["missingEvidence"] == 3)
        #expect(verify.json?["problem"]?["kind"] == "missingEvidence")
        #expect(verify.json?["problem"]?["seq"] == 1)
        #expect(verify.err.hasPrefix("error: record 1 refers to evidence "), "\(verify.err)")
        #expect(verify.err.contains("3 record(s) refer to evidence missing"), "\(verify.err)")
        #expect(ledger(["verify", "--data", workspace.data]).code == 1)
    }

    @Test func aRecordOfANewerFormatVersionIsAFailureNotAnInternalError() throws {
        try ingest(2)
        // The first record's version byte (its body's first byte) set to 2, its CRC-32C recomputed: a well-formed
        // record this build cannot read.
        let segment = workspace.data + "/log/00000000000000000001.seg"
        var bytes = readFile(segment)
        let start = 128
        let length = Int(bytes[start]) | Int(bytes[start + 1]) << 8 | Int(bytes[start + 2]) << 16
        bytes[start + 8] = 2
        let crc = CRC32C.checksum(Array(bytes[start..<(start + 4)]) + Array(bytes[(start + 8)..<(start + 8 + length)]))
        for index in 0..<4 { bytes[start + 4 + index] = UInt8(truncatingIfNeeded: crc >> (8 * index)) }
        write(segment, bytes: bytes)
        let empty = workspace.file("empty.jsonl", [])
        for command in [
            ["state", "--data", workspace.data, "--user", "42"],
            ["history", "--data", workspace.data, "--user", "42"],
            ["ingest", "--data", workspace.data] + workspace.verifyFlags + [empty],
            ["rebuild", "--data", workspace.data],
            ["repair", "--data", workspace.data],
            ["verify", "--data", workspace.data],
        ] {
            let result = ledger(command)
            #expect(result.code == 1, "\(command[0]): \(result.err)")
            let message = "segment 00000000000000000001.seg byte 128: record 1 was written by log format 2; upgrade"
            #expect(result.err.contains("error: " + message), "\(command[0]): \(result.err)")
        }
    }

    @Test func verifyFindsARecordTheLedgerCannotRead() throws {
        try ingest(2)
        // Appended beneath the ledger: records framed, checksummed and chained as any other, whose payloads are a
        // record of a newer encoding and bytes that are no record at all.
        let log = try EventLog.openWriter(at: workspace.data, environment: "Sandbox")
        _ = try log.append([
            LogEntry(idempotencyKey: "newer", payload: [9, 0, 0]),
            LogEntry(idempotencyKey: "junk", payload: [1, 0xFF]),
        ])
        log.close()
        let result = ledger(["verify", "--data", workspace.data, "--json"])
        #expect(result.code == 1)
        let problem = try #require(result.json?["problem"])
        #expect(problem["kind"] == "unreadableRecord")
        #expect(problem["seq"] == 3)
        #expect(problem["segment"] == "00000000000000000001.seg")
        #expect((problem["offset"]?.int64 ?? 0) > 128)
        #expect(
            result.err.contains(
                "record 3 passes its checksum and its chain hash but cannot be read (2 records in all): record "
                    + "encoding version 9 is newer than this build reads"),
            "\(result.err)")
        #expect(result.json?["headSeq"] == 4, "the walk still reports the whole log")
    }

    @Test func rebuildReportsTheProjection() throws {
        try ingest(2)
        let result = ledger(["rebuild", "--data", workspace.data, "--json"])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.json?["records"] == 2)
    }
}
