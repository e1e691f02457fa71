import CPostgres

/// One statement's result (`PGresult`), freed exactly once when the value goes away. Values are in PostgreSQL's
/// binary format (``PostgresConnection/execute(_:_:)`` asks for it); the accessors decode the types the ledger
/// uses.
///
/// `@unchecked Sendable`: a `PGresult` is never changed after libpq made it (libpq documents reading one from
/// several threads as safe), and this class only reads it.
public final class PostgresResult: @unchecked Sendable {
    private let handle: OpaquePointer

    init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        PQclear(handle)
    }

    /// The number of rows.
    public var rowCount: Int { Int(PQntuples(handle)) }

    /// The number of rows an INSERT, UPDATE or DELETE touched (0 for other statements).
    public var affectedRows: Int {
        guard let text = PQcmdTuples(handle) else { return 0 }
        return Int(String(cString: text)) ?? 0
    }

    /// Whether a value is SQL NULL.
    public func isNull(_ row: Int, _ column: Int) -> Bool {
        PQgetisnull(handle, Int32(row), Int32(column)) == 1
    }

    /// Calls `body` with a value's bytes in place (valid only during the call).
    public func withBytes<R>(_ row: Int, _ column: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        guard let value = PQgetvalue(handle, Int32(row), Int32(column)), length > 0 else {
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        return try body(UnsafeRawBufferPointer(start: UnsafeRawPointer(value), count: length))
    }

    /// A `bytea` (or any value's raw bytes).
    public func bytes(_ row: Int, _ column: Int) -> [UInt8] {
        withBytes(row, column) { Array($0) }
    }

    /// A `text` value.
    public func text(_ row: Int, _ column: Int) -> String {
        withBytes(row, column) { String(decoding: $0, as: UTF8.self) }
    }

    /// An `int8`, `int4` or `int2` value.
    public func integer(_ row: Int, _ column: Int) throws(PostgresError) -> Int64 {
        let value: Int64? = withBytes(row, column) { raw in
            switch raw.count {
            case 8: return Int64(bigEndian: raw.loadUnaligned(as: Int64.self))
            case 4: return Int64(Int32(bigEndian: raw.loadUnaligned(as: Int32.self)))
            case 2: return Int64(Int16(bigEndian: raw.loadUnaligned(as: Int16.self)))
            default: return nil
            }
        }
        guard let value else {
            throw PostgresError(.protocolViolation, "column \(column) of row \(row) is not a binary integer")
        }
        return value
    }

    /// A one-dimensional `text[]` value (an empty array for SQL NULL).
    public func textArray(_ row: Int, _ column: Int) throws(PostgresError) -> [String] {
        if isNull(row, column) { return [] }
        let values: [String]? = withBytes(row, column) { raw in
            PostgresResult.decodeArray(raw) { String(decoding: $0, as: UTF8.self) }
        }
        guard let values else {
            throw PostgresError(.protocolViolation, "column \(column) of row \(row) is not a binary text[] value")
        }
        return values
    }

    /// Decodes the binary array format (one dimension, no NULL elements); nil when the bytes are not one.
    static func decodeArray<T>(_ raw: UnsafeRawBufferPointer, _ element: (UnsafeRawBufferPointer) -> T) -> [T]? {
        func int32(_ offset: Int) -> Int? {
            guard offset + 4 <= raw.count else { return nil }
            return Int(Int32(bigEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)))
        }
        guard let dimensions = int32(0) else { return nil }
        if dimensions == 0 { return [] }
        guard dimensions == 1, let count = int32(12), count >= 0 else { return nil }
        var values: [T] = []
        values.reserveCapacity(count)
        var position = 20
        for _ in 0..<count {
            guard let length = int32(position), length >= 0, position + 4 + length <= raw.count else { return nil }
            values.append(element(UnsafeRawBufferPointer(rebasing: raw[(position + 4)..<(position + 4 + length)])))
            position += 4 + length
        }
        return values
    }
}
