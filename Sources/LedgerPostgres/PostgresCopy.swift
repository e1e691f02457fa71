import CPostgres

/// One row of a `COPY … TO STDOUT (FORMAT binary)` stream: its fields in PostgreSQL's binary format (the same
/// bytes a binary result holds), in place.
public struct PostgresCopyRow {
    private let fields: [UnsafeRawBufferPointer?]

    init(_ fields: [UnsafeRawBufferPointer?]) {
        self.fields = fields
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// A field's bytes (empty for SQL NULL), valid only while the row is.
    public subscript(_ index: Int) -> UnsafeRawBufferPointer {
        fields[index] ?? UnsafeRawBufferPointer(start: nil, count: 0)
    }

    /// Whether a field is SQL NULL.
    public func isNull(_ index: Int) -> Bool { fields[index] == nil }

    /// An `int8` field.
    public func int64(_ index: Int) -> Int64? {
        let raw = self[index]
        guard raw.count == 8 else { return nil }
        return Int64(bigEndian: raw.loadUnaligned(as: Int64.self))
    }
}

extension PostgresConnection {
    /// Streams the rows of `COPY (query) TO STDOUT (FORMAT binary)`: one statement, the rows arriving as the
    /// server produces them, each decoded in place from the binary copy format. When `row` throws, the stream is
    /// left unfinished and the connection unusable: close it.
    /// - Throws: `PostgresError` when the server refuses the statement or the stream is malformed; what `row`
    ///   throws.
    public func copyOut(_ query: String, _ row: (PostgresCopyRow) throws -> Void) throws {
        let sql = "COPY (\(query)) TO STDOUT (FORMAT binary)"
        guard let started = PQexec(handle, sql) else { throw lostConnection() }
        guard PQresultStatus(started) == PGRES_COPY_OUT else {
            _ = try check(started, sql)
            throw PostgresError(.protocolViolation, "PostgreSQL at \(displayURL) did not start `\(sql)`")
        }
        PQclear(started)
        var parser = BinaryCopyParser()
        var fields: [UnsafeRawBufferPointer?] = []
        while true {
            var buffer: UnsafeMutablePointer<CChar>?
            let length = PQgetCopyData(handle, &buffer, 0)
            if length == -1 { break }
            guard length > 0, let buffer else { throw lostConnection() }
            defer { PQfreemem(buffer) }
            let message = UnsafeRawBufferPointer(start: buffer, count: Int(length))
            guard try parser.row(message, into: &fields) else { continue }
            try row(PostgresCopyRow(fields))
        }
        var failure: PostgresError?
        while let raw = PQgetResult(handle) {
            do {
                _ = try check(raw, sql)
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
        guard parser.ended else {
            throw PostgresError(.protocolViolation, "PostgreSQL at \(displayURL) ended `\(sql)` without its trailer")
        }
    }
}

/// The binary copy format: an 11-byte signature, flags and a header extension, then per row a 16-bit field count
/// and each field as a 32-bit length (-1: NULL) and its bytes, then a count of -1. libpq hands over one row per
/// message; the header comes with the first.
struct BinaryCopyParser {
    private static let signature: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00]
    private var headerRead = false
    private(set) var ended = false

    /// Reads the row of one message into `fields` (pointing into `message`); false for a message holding no row
    /// (the header alone, or the trailer).
    mutating func row(_ message: UnsafeRawBufferPointer, into fields: inout [UnsafeRawBufferPointer?])
        throws(PostgresError) -> Bool
    {
        var position = 0
        func int32() throws(PostgresError) -> Int {
            guard position + 4 <= message.count else { throw Self.malformed }
            defer { position += 4 }
            return Int(Int32(bigEndian: message.loadUnaligned(fromByteOffset: position, as: Int32.self)))
        }
        if !headerRead {
            guard message.count >= 19, message.prefix(11).elementsEqual(Self.signature) else { throw Self.malformed }
            position = 15
            let extensionLength = try int32()
            guard extensionLength >= 0, position + extensionLength <= message.count else { throw Self.malformed }
            position += extensionLength
            headerRead = true
        }
        guard position < message.count else { return false }
        guard !ended, position + 2 <= message.count else { throw Self.malformed }
        let count = Int(Int16(bigEndian: message.loadUnaligned(fromByteOffset: position, as: Int16.self)))
        position += 2
        if count == -1 {
            ended = true
            return false
        }
        guard count >= 0 else { throw Self.malformed }
        fields.removeAll(keepingCapacity: true)
        for _ in 0..<count {
            let length = try int32()
            if length == -1 {
                fields.append(nil)
                continue
            }
            guard length >= 0, position + length <= message.count else { throw Self.malformed }
            fields.append(UnsafeRawBufferPointer(rebasing: message[position..<(position + length)]))
            position += length
        }
        guard position == message.count else { throw Self.malformed }
        return true
    }

    private static var malformed: PostgresError {
        PostgresError(.protocolViolation, "a COPY stream from PostgreSQL is not in the binary copy format")
    }
}
