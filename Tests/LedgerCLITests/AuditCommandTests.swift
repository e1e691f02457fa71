import LedgerCore
import LedgerCrypto
import LedgerJSON
import LedgerLog
import LedgerTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `ledger audit`: every evidence payload re-verified, every chain link checked.
@Suite struct AuditCommandTests {
    let workspace = Workspace()

    func ingest(_ count: Int) throws {
        var lines: [String] = []
        for i in 0..<count {
            let signed = try workspace.pki.signedNotification(
                type: "DID_RENEW", uuid: TestPKI.Payloads.uuid(500 + i),
                transaction: TestPKI.Payloads.transaction(transactionId: "40000000000\(1000 + i)"))
            lines.append(String(decoding: TestPKI.body(signed), as: UTF8.self))
        }
        let result = ledger(
            ["ingest", "--data", workspace.data] + workspace.verifyFlags + [workspace.file("in.jsonl", lines)])
        #expect(result.code == 0, "\(result.err)")
    }

    var audit: [String] { ["audit", "--data", workspace.data, "--user", "42", "--json"] + workspace.verifyFlags }

    @Test func aCleanLedgerPasses() throws {
        try ingest(3)
        let result = ledger(audit)
        #expect(result.code == 0, "\(result.err)")
        #expect(result.json?["verified"] == 3)
        #expect(result.json?["failures"] == 0)
    }

    @Test func aTamperedEvidenceFileIsFlagged() throws {
        try ingest(3)
        let log = try EventLog.openReader(at: workspace.data)
        let record = try log.record(seq: 2)
        let entry = try LedgerRecord(decoding: record.payload)
        let digest = try #require(entry.evidence)
        let stored = try #require(log.evidenceLocation(digest))
        log.close()
        var bytes = Array(readFile(stored.path))
        bytes[Int(stored.offset) + 56 + stored.length / 2] ^= 0x01  // a byte of the body (after its 56-byte header)
        write(stored.path, bytes: bytes)
        let result = ledger(audit)
        #expect(result.code == 1)
        let failed = result.json?["findings"]?.array?.filter { $0["evidence"] == "failed" }
        #expect(failed?.map { $0["seq"] } == [2])
        // Export cannot carry damaged evidence: a failure found (exit 1), not a bug in ledger (70).
        let export = ledger(["export", "--data", workspace.data])
        #expect(export.code == 1, "\(export.err)")
        #expect(export.err.contains("no longer matches its SHA-256"), "\(export.err)")
    }

    /// Changes one character of record 2's framed idempotency key (body bytes 20…) and recomputes the frame's CRC,
    /// as a careful forger would, and with `reseal` its own chain hash too: only the hash chain can tell.
    func forgeRecord2(reseal: Bool) throws {
        let log = try EventLog.openReader(at: workspace.data)
        let record = try log.record(seq: 2)
        let previous = try log.record(seq: 1).hash
        let segment = workspace.data + "/log/" + record.segment
        log.close()
        var bytes = Array(readFile(segment))
        let offset = Int(record.offset)
        bytes[offset + 8 + 20 + 3] ^= 0x01
        let length = Int(
            UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(
                bytes[offset + 3]) << 24)
        let body = offset + 8
        if reseal {
            let hash = SHA256.hash(previous + bytes[body..<(body + length - 32)])
            bytes.replaceSubrange((body + length - 32)..<(body + length), with: hash)
        }
        let crc = CRC32C.update(
            CRC32C.checksum(bytes[offset..<(offset + 4)]), Array(bytes[body..<(body + length)]).withUnsafeBytes { $0 })
        for i in 0..<4 { bytes[offset + 4 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
        write(segment, bytes: bytes)
    }

    @Test func aBrokenChainLinkIsFlagged() throws {
        try ingest(3)
        try forgeRecord2(reseal: false)
        let result = ledger(audit)
        #expect(result.code == 1)
        let broken = result.json?["findings"]?.array?.filter { $0["chainLink"] == false }
        // The link between records 1 and 2 breaks. Record 2 rewritten in place and record 1 rewritten with its
        // hash recomputed leave the same bytes behind, so both ends of the broken link are flagged.
        #expect(broken?.map { $0["seq"] } == [1, 2])
        #expect(ledger(["verify", "--data", workspace.data]).code == 1)
    }

    @Test func aRecordResealedWithItsOwnHashIsFlaggedByTheLinkAfterIt() throws {
        try ingest(3)
        try forgeRecord2(reseal: true)
        let result = ledger(audit)
        #expect(result.code == 1)
        let broken = result.json?["findings"]?.array?.filter { $0["chainLink"] == false }.map { $0["seq"] }
        #expect(broken == [2, 3], "record 2 links to record 1, but record 3 no longer links to it")
        #expect(ledger(["verify", "--data", workspace.data]).code == 1)
    }
}

func readFile(_ path: String) -> [UInt8] {
    guard let file = fopen(path, "r") else { return [] }
    defer { fclose(file) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count <= 0 { break }
        out.append(contentsOf: buffer[0..<count])
    }
    return out
}
