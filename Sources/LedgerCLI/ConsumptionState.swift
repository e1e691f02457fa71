import LedgerJSON
import LedgerSystem

/// `serve --consumption auto`'s durable cursor in the data directory (`consumption-answers`, Events/README.md):
/// the seq the log was scanned up to, and the CONSUMPTION_REQUEST records not yet answered.
struct ConsumptionState: Sendable {
    /// The file's name in the data directory.
    static let file = "consumption-answers"

    /// What the file holds.
    struct Contents: Equatable {
        /// Every record up to this seq was looked at.
        var scanned: UInt64
        /// The CONSUMPTION_REQUEST records still to answer, oldest first.
        var pending: [UInt64]
    }

    let path: String

    /// The contents, nil when there is no file yet; a file that does not read is an error naming it.
    func read() throws(CLIError) -> Contents? {
        guard let bytes = try? PosixFileSystem().readFile(path) else { return nil }
        guard let value = try? JSONValue.parse(bytes), let scanned = value["scanned"]?.int64, scanned >= 0,
            let pending = value["pending"]?.array
        else {
            throw CLIError.failure(
                "\(path) is not {\"scanned\":SEQ,\"pending\":[SEQ,…]}: move it aside to look for requests of the "
                    + "last 12 hours again")
        }
        var seqs: [UInt64] = []
        for member in pending {
            guard let seq = member.int64, seq > 0 else {
                throw CLIError.failure("\(path): a pending entry is not a record's seq")
            }
            seqs.append(UInt64(seq))
        }
        return Contents(scanned: UInt64(scanned), pending: seqs)
    }

    /// Replaces the file durably (a temporary file, fsync, rename, directory fsync).
    func write(_ contents: Contents) throws(CLIError) {
        let value = JSONValue.object([
            "scanned": .integer(Int64(clamping: contents.scanned)),
            "pending": .array(contents.pending.map { .integer(Int64(clamping: $0)) }),
        ])
        do {
            try PosixFileSystem().writeFileDurably(path, value.serializedBytes() + [0x0A])
        } catch {
            throw CLIError.failure("cannot write \(path): \(error.message)")
        }
    }
}
