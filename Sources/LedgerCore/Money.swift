/// An amount in milliunits of a currency, Apple's unit for prices (10990 = 10.99).
public struct Money: Hashable, Sendable, Comparable {
    /// Thousandths of the currency's unit.
    public var milliunits: Int64
    /// ISO 4217 code, e.g. `EUR`.
    public var currency: String

    /// Creates an amount.
    public init(milliunits: Int64, currency: String) {
        self.milliunits = milliunits
        self.currency = currency
    }

    /// Orders by currency, then amount.
    public static func < (lhs: Money, rhs: Money) -> Bool {
        (lhs.currency, lhs.milliunits) < (rhs.currency, rhs.milliunits)
    }

    /// The amount as a decimal string with at least two decimals: `4.90`, `-1.995`.
    public var decimalString: String { Money.decimalString(milliunits: milliunits) }

    /// Formats milliunits as a decimal string with at least two decimals.
    public static func decimalString(milliunits: Int64) -> String {
        let negative = milliunits < 0
        let magnitude = milliunits.magnitude
        let whole = magnitude / 1000
        let fraction = Int(magnitude % 1000)
        var decimals: String
        if fraction % 10 == 0 {
            let cents = fraction / 10
            decimals = cents < 10 ? "0\(cents)" : "\(cents)"
        } else {
            decimals = String(fraction)
            while decimals.count < 3 { decimals = "0" + decimals }
        }
        return (negative ? "-" : "") + "\(whole).\(decimals)"
    }

    /// Parses a decimal string (`4.90`, `4,90`, `39`) into milliunits; nil when not a number or
    /// when it has more than three decimals.
    public static func milliunits(parsing text: String) -> Int64? {
        let normalized = text.replacingAll(",", with: ".")
        let parts = normalized.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let wholePart = parts.first else { return nil }
        var negative = false
        var whole = Substring(wholePart)
        if whole.hasPrefix("-") {
            negative = true
            whole = whole.dropFirst()
        }
        guard !whole.isEmpty, whole.allSatisfy({ $0.isASCII && $0.isNumber }), let units = Int64(whole)
        else {
            return nil
        }
        var fraction: Int64 = 0
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy({ $0.isASCII && $0.isNumber })
            else {
                return nil
            }
            fraction = Int64(digits)! * [100, 10, 1][digits.count - 1]
        }
        let (scaled, overflow) = units.multipliedReportingOverflow(by: 1000)
        let (sum, carried) = scaled.addingReportingOverflow(fraction)
        // Int64.min has no positive twin: a sum that large is refused even when negative.
        guard !overflow, !carried else { return nil }
        return negative ? -sum : sum
    }
}

extension String {
    func replacingAll(_ target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
