extension LedgerRecord {
    /// Where an encoded record (``encoded()``) holds the SHA-256 of its evidence: the range of those bytes in
    /// `payload`, or nil when the record references no evidence or the bytes are not a record this build reads.
    ///
    /// Reads only up to the evidence, strings as byte ranges (the fold's readers, with the decoder's checks), and
    /// allocates nothing: the log asks it of every record when `ledger verify` checks that every record's evidence
    /// is there, and when the writer's open makes sure that no record refers to the bytes it would cut off the
    /// end of an evidence pack.
    public static func evidenceRange(inEncoded payload: UnsafeRawBufferPointer) -> Range<Int>? {
        var reader = FactReader(payload)
        do throws(CoreError) {
            let version = try reader.primitives.readByte()
            guard version == 1 || version == currentVersion else { return nil }
            let parts = try reader.primitives.readVarint()
            guard parts & 1 << 3 != 0 else { return nil }
            try checkMask(parts, bits: 9, group: "record parts")
            _ = try reader.readRange()  // environment
            _ = try reader.primitives.readByte()  // source
            _ = try reader.readRange()  // idempotency key
            let mask = try reader.primitives.readVarint()
            try checkMask(mask, bits: 3, group: "subject")
            if mask & 1 << 0 != 0 { _ = try reader.readRange() }  // originalTransactionId
            if mask & 1 << 1 != 0 { _ = try reader.readRange() }  // appAccountToken
            if mask & 1 << 2 != 0 { _ = try reader.primitives.readSigned() }  // userId
            // The evidence follows the notification, transaction and renewal in version 1, their fold fields in
            // version 2.
            if version == 1 {
                if parts & 1 << 0 != 0 { _ = try NotificationPart(version1: &reader) }
                if parts & 1 << 1 != 0 { _ = try TransactionPart(version1: &reader) }
                if parts & 1 << 2 != 0 { _ = try RenewalPart(version1: &reader) }
            } else {
                if parts & 1 << 0 != 0 { _ = try NotificationPart(&reader) }
                if parts & 1 << 1 != 0 { _ = try TransactionPart(&reader) }
                if parts & 1 << 2 != 0 { _ = try RenewalPart(&reader) }
            }
            let run = try reader.primitives.readRun(maxLength: maxEvidenceLength)
            return run.start..<(run.start + run.count)
        } catch {
            return nil
        }
    }
}
