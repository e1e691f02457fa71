import CPostgres

/// Writes the rows of one `COPY … FROM STDIN (FORMAT binary)` in the binary copy format (the one
/// ``BinaryCopyParser`` reads): the signature, then per row a field count and each field as a length and its bytes
/// in the server's binary form, then the trailer. The bytes go to the server in chunks as they fill up, so a batch
/// of any size holds at most one chunk in memory and the server starts inserting while the client still encodes.
public struct PostgresCopyEncoder {
    /// Where the rows go: a connection in the COPY IN state, or nil to keep every byte in ``buffered`` (for tests).
    private let handle: OpaquePointer?
    private let displayURL: String
    /// The bytes not yet sent.
    public private(set) var buffered: [UInt8] = []
    /// The rows written so far.
    public private(set) var rowCount = 0
    /// The most bytes kept before they are sent.
    static let chunkSize = 256 << 10

    /// The signature, flags (none) and an empty header extension.
    static let header: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [0, 0, 0, 0] + [0, 0, 0, 0]

    /// An encoder that keeps every byte (no connection): the stream ``finish()`` would send.
    public init() {
        self.init(handle: nil, displayURL: "")
    }

    init(handle: OpaquePointer?, displayURL: String) {
        self.handle = handle
        self.displayURL = displayURL
        buffered.reserveCapacity(handle == nil ? 4_096 : Self.chunkSize + (64 << 10))
        buffered.append(contentsOf: Self.header)
    }

    /// Starts a row of `fields` fields (write them next, in the table's column order), sending the bytes so far
    /// when a chunk is full.
    public mutating func row(fields: Int16) throws(PostgresError) {
        if handle != nil && buffered.count >= Self.chunkSize { try send() }
        buffered.appendBigEndian(fields)
        rowCount += 1
    }

    /// An `int8` field.
    public mutating func int64(_ value: Int64) {
        buffered.appendBigEndian(Int32(8))
        buffered.appendBigEndian(value)
    }

    /// A `text` field, as UTF-8.
    public mutating func text(_ value: String) {
        buffered.appendBigEndian(Int32(value.utf8.count))
        buffered.append(contentsOf: value.utf8)
    }

    /// A `bytea` field.
    public mutating func bytea(_ value: [UInt8]) {
        buffered.appendBigEndian(Int32(value.count))
        buffered.append(contentsOf: value)
    }

    /// A `text[]` field (one dimension, no NULLs), in the binary array format parameters use.
    public mutating func textArray(_ values: [String]) {
        let lengthAt = buffered.count
        buffered.appendBigEndian(Int32(0))
        PostgresValue.textArray(values).encode(into: &buffered)
        let length = UInt32(buffered.count - lengthAt - 4)
        withUnsafeBytes(of: length.bigEndian) { raw in
            for offset in 0..<4 { buffered[lengthAt + offset] = raw[offset] }
        }
    }

    /// Writes the trailer and sends what is left.
    mutating func finish() throws(PostgresError) {
        buffered.appendBigEndian(Int16(-1))
        if handle != nil { try send() }
    }

    /// The trailer, for an encoder without a connection: the whole stream.
    public mutating func finished() -> [UInt8] {
        buffered.appendBigEndian(Int16(-1))
        return buffered
    }

    private mutating func send() throws(PostgresError) {
        guard let handle, !buffered.isEmpty else { return }
        let sent = buffered.withUnsafeBytes { raw in
            PQputCopyData(handle, raw.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(raw.count))
        }
        guard sent == 1 else {
            throw PostgresError(
                .connection,
                "lost the connection to PostgreSQL at \(displayURL) while copying rows: "
                    + "\(PostgresConnection.trimmed(PQerrorMessage(handle))); check the server, then retry")
        }
        buffered.removeAll(keepingCapacity: true)
    }
}

extension PostgresConnection {
    /// Runs a parameterless script whose statements may include `COPY … FROM STDIN (FORMAT binary)`: the `n`th such
    /// COPY (from 0) gets its rows from `rows(n, &encoder)`. The server runs the statements in order, so a script
    /// `COPY …; COPY …; COMMIT` costs one exchange per COPY and no statement per row. After the first failure the
    /// server skips the rest of the script (a transaction it ran in is then left failed: roll it back); when `rows`
    /// throws, its COPY is failed, which fails the script.
    /// - Returns: the results of the statements that are not COPY.
    /// - Throws: the first failure, as ``execute(_:_:)`` reports it, or what `rows` threw.
    @discardableResult
    public func runCopying(_ sql: String, rows: (Int, inout PostgresCopyEncoder) throws(PostgresError) -> Void)
        throws(PostgresError) -> [PostgresResult]
    {
        guard PQsendQuery(handle, sql) == 1 else { throw lostConnection() }
        var failure: PostgresError?
        var results: [PostgresResult] = []
        var copies = 0
        while let raw = PQgetResult(handle) {
            let status = PQresultStatus(raw)
            if status == PGRES_COPY_IN {
                PQclear(raw)
                var reason: String?
                if failure == nil {
                    do throws(PostgresError) {
                        var encoder = PostgresCopyEncoder(handle: handle, displayURL: displayURL)
                        try rows(copies, &encoder)
                        try encoder.finish()
                    } catch {
                        failure = error
                        reason = "the client stopped the copy: \(error.message)"
                    }
                } else {
                    reason = "the client stopped the copy after an earlier failure"
                }
                copies += 1
                guard PQputCopyEnd(handle, reason) == 1 else {
                    failure = failure ?? lostConnection()
                    break
                }
                continue
            }
            if status == PGRES_COPY_OUT || status == PGRES_COPY_BOTH {
                PQclear(raw)
                failure = failure ?? PostgresError(.protocolViolation, "a copying script may only copy in: `\(sql)`")
                break
            }
            do {
                results.append(try check(raw, sql))
            } catch {
                failure = failure ?? error
            }
            if !isHealthy { break }
        }
        if let failure { throw failure }
        return results
    }
}
