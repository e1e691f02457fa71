import LedgerCore
import LedgerJSON

/// A report's result: named columns and rows of cells with its charts, rendered as text, CSV, JSON, SVG or HTML.
public struct ReportTable: Sendable, Hashable {
    /// A cell: text, an integer, or an amount in milliunits shown as a decimal.
    public enum Cell: Sendable, Hashable {
        case text(String)
        case integer(Int64)
        case amount(Int64)
        case ratio(Double)

        var display: String {
            switch self {
            case .text(let text): return text
            case .integer(let value): return String(value)
            case .amount(let milliunits): return Money.decimalString(milliunits: milliunits)
            case .ratio(let value): return String(Double(Int((value * 10000).rounded())) / 10000)
            }
        }

        var json: JSONValue {
            switch self {
            case .text(let text): return .string(text)
            case .integer(let value): return .integer(value)
            case .amount(let milliunits): return .string(Money.decimalString(milliunits: milliunits))
            case .ratio(let value): return .double(Double(Int((value * 10000).rounded())) / 10000)
            }
        }

        var number: Double? {
            switch self {
            case .text: return nil
            case .integer(let value): return Double(value)
            case .amount(let milliunits): return Double(milliunits) / 1000
            case .ratio(let value): return value
            }
        }
    }

    /// The report's kind (`sales`, `events`, `active`, `mrr`, `churn`).
    public var kind: String
    /// Column names.
    public var columns: [String]
    /// Rows, each with one cell per column.
    public var rows: [[Cell]]
    /// What the report is, e.g. `Sales, by month (Pacific Time)`.
    public var title: String
    /// The definitions of its figures, one sentence each.
    public var notes: [String]
    /// Its charts, drawn by ``svg()`` and ``html()``.
    public var charts: [ReportChart]

    /// Creates a table.
    public init(
        kind: String, columns: [String], rows: [[Cell]], title: String = "", notes: [String] = [],
        charts: [ReportChart] = []
    ) {
        self.kind = kind
        self.columns = columns
        self.rows = rows
        self.title = title.isEmpty ? kind : title
        self.notes = notes
        self.charts = charts
    }

    /// The table as a JSON array of objects (amounts as decimal strings).
    public var json: JSONValue {
        .array(rows.map { row in .object(JSONObject(zip(columns, row).map { ($0, $1.json) })) })
    }

    /// RFC 4180 CSV with a header line.
    public var csv: String {
        func quote(_ text: String) -> String {
            // By bytes: "\r\n" is one Character, equal to neither "\r" nor "\n".
            text.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
                ? "\"" + text.replacingOccurrences("\"", "\"\"") + "\"" : text
        }
        var out = columns.map(quote).joined(separator: ",") + "\n"
        for row in rows { out += row.map { quote($0.display) }.joined(separator: ",") + "\n" }
        return out
    }

    /// An aligned text table.
    public var text: String {
        var widths = columns.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.display.count) }
        }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: "  ")
        }
        return ([line(columns)] + rows.map { line($0.map(\.display)) }).joined(separator: "\n") + "\n"
    }
}

extension String {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: Character(target), omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
