/// A statement parameter, sent to the server in PostgreSQL's binary format with its type, so bytes travel as
/// bytes (no escaping, no hex) and no value is ever spliced into SQL text.
public enum PostgresValue: Sendable, Hashable {
    /// `int8` (bigint).
    case int64(Int64)
    /// `int4` (integer).
    case int32(Int32)
    /// `text`, as UTF-8.
    case text(String)
    /// `bytea`.
    case bytes([UInt8])
    /// `text[]`, one dimension.
    case textArray([String])
    /// `bytea[]`, one dimension.
    case bytesArray([[UInt8]])
    /// `int8[]`, one dimension.
    case int64Array([Int64])

    /// A `text[]` in PostgreSQL's text form (`{"a","b\"c"}`), every element quoted: for a column of arrays
    /// sent as one `text[]` of these and cast back by the server (arrays of arrays must be rectangular).
    static func arrayLiteral(_ elements: [String]) -> String {
        var text = "{"
        for (index, element) in elements.enumerated() {
            text += index == 0 ? "\"" : ",\""
            for scalar in element.unicodeScalars {
                if scalar == "\"" || scalar == "\\" { text += "\\" }
                text.unicodeScalars.append(scalar)
            }
            text += "\""
        }
        return text + "}"
    }

    /// The type's OID, as the server's catalog numbers it.
    var oid: UInt32 {
        switch self {
        case .int64: return PostgresOID.int8
        case .int32: return PostgresOID.int4
        case .text: return PostgresOID.text
        case .bytes: return PostgresOID.bytea
        case .textArray: return PostgresOID.textArray
        case .bytesArray: return PostgresOID.byteaArray
        case .int64Array: return PostgresOID.int8Array
        }
    }

    /// Appends the value's binary representation to `buffer`.
    func encode(into buffer: inout [UInt8]) {
        switch self {
        case .int64(let value): buffer.appendBigEndian(value)
        case .int32(let value): buffer.appendBigEndian(value)
        case .text(let value): buffer.append(contentsOf: value.utf8)
        case .bytes(let value): buffer.append(contentsOf: value)
        case .textArray(let values):
            Self.encodeArray(into: &buffer, element: PostgresOID.text, count: values.count) { index, buffer in
                buffer.append(contentsOf: values[index].utf8)
            }
        case .bytesArray(let values):
            Self.encodeArray(into: &buffer, element: PostgresOID.bytea, count: values.count) { index, buffer in
                buffer.append(contentsOf: values[index])
            }
        case .int64Array(let values):
            Self.encodeArray(into: &buffer, element: PostgresOID.int8, count: values.count) { index, buffer in
                buffer.appendBigEndian(values[index])
            }
        }
    }

    /// The binary array format: dimensions, has-nulls flag, element OID, then per dimension its size and lower
    /// bound, then each element as a length (i32) and its bytes.
    private static func encodeArray(
        into buffer: inout [UInt8], element: UInt32, count: Int, _ encode: (Int, inout [UInt8]) -> Void
    ) {
        buffer.appendBigEndian(Int32(count == 0 ? 0 : 1))
        buffer.appendBigEndian(Int32(0))
        buffer.appendBigEndian(element)
        guard count > 0 else { return }
        buffer.appendBigEndian(Int32(count))
        buffer.appendBigEndian(Int32(1))
        for index in 0..<count {
            let lengthAt = buffer.count
            buffer.appendBigEndian(Int32(0))
            encode(index, &buffer)
            let length = UInt32(buffer.count - lengthAt - 4)
            withUnsafeBytes(of: length.bigEndian) { bytes in
                for offset in 0..<4 { buffer[lengthAt + offset] = bytes[offset] }
            }
        }
    }
}

/// The type OIDs the ledger sends and reads (fixed in PostgreSQL's catalog).
enum PostgresOID {
    static let bool: UInt32 = 16
    static let bytea: UInt32 = 17
    static let int8: UInt32 = 20
    static let int4: UInt32 = 23
    static let text: UInt32 = 25
    static let byteaArray: UInt32 = 1001
    static let textArray: UInt32 = 1009
    static let int8Array: UInt32 = 1016
}

extension Array where Element == UInt8 {
    /// Appends an integer in network byte order.
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
