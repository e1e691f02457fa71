/// How to lay out serialized JSON.
public enum JSONLayout: Sendable {
    /// No white space: one line, as JSON Lines needs.
    case compact
    /// Two-space indentation, one member per line.
    case pretty
}

extension JSONValue {
    /// The JSON text of this value.
    public func serialized(_ layout: JSONLayout = .compact) -> String {
        String(decoding: serializedBytes(layout), as: UTF8.self)
    }

    /// The UTF-8 JSON text of this value.
    public func serializedBytes(_ layout: JSONLayout = .compact) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(into: &out, layout: layout, indent: 0)
        return out
    }

    /// Appends the UTF-8 JSON text of this value to `out`.
    public func write(into out: inout [UInt8], layout: JSONLayout = .compact, indent: Int = 0) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .integer(let value): out.append(contentsOf: String(value).utf8)
        case .double(let value): JSONValue.writeDouble(value, into: &out)
        case .string(let value): JSONValue.writeString(value, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.newline(&out, layout, indent + 1)
                element.write(into: &out, layout: layout, indent: indent + 1)
            }
            if !elements.isEmpty { JSONValue.newline(&out, layout, indent) }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (i, member) in object.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.newline(&out, layout, indent + 1)
                JSONValue.writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                if case .pretty = layout { out.append(UInt8(ascii: " ")) }
                member.value.write(into: &out, layout: layout, indent: indent + 1)
            }
            if object.count > 0 { JSONValue.newline(&out, layout, indent) }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ out: inout [UInt8], _ layout: JSONLayout, _ indent: Int) {
        guard case .pretty = layout else { return }
        out.append(0x0A)
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }

    private static func writeDouble(_ value: Double, into out: inout [UInt8]) {
        guard value.isFinite else {
            out.append(contentsOf: "null".utf8)
            return
        }
        if value == value.rounded(), abs(value) < 1e15 {
            out.append(contentsOf: String(Int64(value)).utf8)
        } else {
            out.append(contentsOf: "\(value)".utf8)
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `value` as a JSON string literal: the text ``writeString(_:into:)`` writes.
    public static func quoted(_ value: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count + 2)
        writeString(value, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `value` as a JSON string literal, escaping quotes, backslashes and control characters.
    public static func writeString(_ value: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20, 0x7F:
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30])
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
