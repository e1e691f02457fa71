import LedgerCrypto

/// What every store shares of the format: its version, the limits of an entry, and the chain. A record's chain
/// hash is the same in every store, so the same records give the same head hash wherever they are kept.
/// `Events/README.md` documents every byte.
public enum LogFormat {
    /// The format version this program writes, and the newest it reads.
    public static let version: UInt8 = 1
    /// The largest record body accepted (16 MiB); a longer length field is damage.
    package static let maxBodySize = 16 << 20
    /// The longest idempotency or subject key, in UTF-8 bytes.
    public static let maxKeyLength = 1024
    /// The most subject keys per record.
    public static let maxSubjectKeys = 64
    /// The largest payload, in bytes.
    public static let maxPayloadSize = maxBodySize - 64 * 1024
    /// The size of a chain hash.
    public static let hashSize = 32

    /// The chain's starting value for an environment: SHA-256 of `"ledger-log/1\0"` followed by the environment's
    /// UTF-8 bytes. Records of one environment cannot be spliced into another's chain.
    public static func genesis(environment: String) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(Array("ledger-log/1\0".utf8))
        hasher.update(Array(environment.utf8))
        return hasher.finalize()
    }

    /// The chain hash a record gets when it is stored as `seq` at `recordedAt` after a record whose hash is
    /// `previous`: SHA-256(previous ‖ body), the body being, little-endian: version (u8), flags (u8, 0), seq
    /// (u64), recordedAt (i64), the idempotency key (u16 length, UTF-8), the subject keys (u16 count, then each as
    /// u16 length and UTF-8), the payload (u32 length, bytes). The file log writes exactly this body in its frames
    /// (and hashes it in place); the tests hold the two to each other.
    public static func chainHash(previous: [UInt8], seq: UInt64, recordedAt: Int64, entry: LogEntry) -> [UInt8] {
        var body: [UInt8] = [version, 0]
        body.reserveCapacity(64 + entry.idempotencyKey.utf8.count + entry.payload.count)
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { body.append(contentsOf: $0) }
        }
        func append(_ text: String) {
            append(UInt16(text.utf8.count))
            body.append(contentsOf: text.utf8)
        }
        append(seq)
        append(recordedAt)
        append(entry.idempotencyKey)
        append(UInt16(entry.subjectKeys.count))
        for key in entry.subjectKeys { append(key) }
        append(UInt32(entry.payload.count))
        body.append(contentsOf: entry.payload)
        var hasher = SHA256()
        hasher.update(previous)
        hasher.update(body)
        return hasher.finalize()
    }
}
