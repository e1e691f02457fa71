import LedgerCrypto
import LedgerStore
import LedgerSystem
import Testing

@testable import LedgerLog

#if canImport(Glibc)
    import Glibc
#endif

/// Damage to the last evidence pack that no crash leaves — a flipped byte in an entry that valid entries follow,
/// the pack removed — never makes the writer's open cut the records that refer to it: they were acknowledged.
/// They stay, and `verify` reports the damage.
@Suite struct EvidenceDamageKeepsRecordsTests {
    /// Five records, each with its evidence synced before it was acknowledged, as the webhook stores them.
    func fiveRecords(_ directory: String) throws -> String {
        let log = try openWriter(directory)
        for n in 1...5 {
            _ = try log.putEvidence(batch: [body(n)], durable: false)
            var record = entry(n)
            record.payload = SHA256.hash(body(n))
            _ = try log.append([record], syncingEvidenceFirst: true)
        }
        log.close()
        return try #require(packPaths(directory).first)
    }

    /// A byte of the second entry's header (its magic, length, checksum or address) or body flipped: the writer's
    /// open and `repair` cut nothing, and `verify` names the damaged entry.
    @Test(arguments: [1, 9, 20, 50, EvidencePack.headerSize + 30])
    func aFlippedByteInAnEntryValidEntriesFollowCutsNoRecord(at position: Int) throws {
        let temp = TempDirectory()
        let pack = try fiveRecords(temp.data)
        var bytes = readBytes(pack)
        bytes[EvidencePack.headerSize + 60 + position] ^= 0x20
        writeBytes(pack, bytes)

        let reopened = try openWriter(temp.data)
        #expect(reopened.recovery == nil, "nothing cut")
        #expect(reopened.head.seq == 5)
        reopened.close()
        let repaired = try EventLog.repair(at: temp.data, evidenceReferences: payloadIsDigest)
        #expect(repaired.cut == nil && repaired.evidenceCut == nil && repaired.headSeq == 5)
        #expect(((try? PosixFileSystem().readDirectory(temp.data + "/lost+found")) ?? []).isEmpty)
        let report = try EventLog.verify(at: temp.data, evidenceReferences: payloadIsDigest)
        #expect(report.problem?.kind == .damagedEvidence || report.problem?.kind == .missingEvidence)
        #expect(report.problem?.offset == Int64(EvidencePack.headerSize + 60), "\(report.problem?.message ?? "")")
    }

    /// Without its pack every record lacks its evidence; a crash cannot do that (a pack is created durably before
    /// anything is written to it), so nothing is cut and `verify` reports the evidence missing.
    @Test func aRemovedPackCutsNoRecord() throws {
        let temp = TempDirectory()
        let pack = try fiveRecords(temp.data)
        #expect(unlink(pack) == 0)
        let reopened = try openWriter(temp.data)
        #expect(reopened.recovery == nil, "nothing cut")
        #expect(reopened.head.seq == 5)
        reopened.close()
        let report = try EventLog.verify(at: temp.data, evidenceReferences: payloadIsDigest)
        #expect(report.problem?.kind == .missingEvidence)
    }
}
