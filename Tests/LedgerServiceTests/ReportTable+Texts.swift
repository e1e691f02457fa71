import LedgerCore
import LedgerService

extension ReportTable {
    /// The rows as the CSV writes their cells: amounts as decimal strings, ratios as numbers.
    var texts: [[String]] {
        rows.map {
            $0.map { cell in
                switch cell {
                case .text(let text): return text
                case .integer(let value): return String(value)
                case .amount(let value): return Money.decimalString(milliunits: value)
                case .ratio(let value): return String(value)
                }
            }
        }
    }
}
