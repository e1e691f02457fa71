import LedgerCore
import LedgerErrors
import LedgerJSON

/// How a report computes and groups what it shows, beyond its period.
public struct ReportOptions: Sendable, Hashable {
    /// Apple's commission on a sale.
    public enum Commission: String, Sendable, CaseIterable {
        /// 30% in a subscription's first year of paid service, 15% once it has a year of retained paid service.
        case standard
        /// The App Store Small Business Program: 15% throughout.
        case smallBusiness = "small-business"
    }

    /// What the stacked series of a chart are.
    public enum Stack: String, Sendable, CaseIterable {
        /// The product's billing period (monthly, semiannual, annual).
        case period
        /// The product's device count.
        case devices
    }

    /// The commission the proceeds are computed with.
    public var commission: Commission
    /// The stacked series of charts.
    public var stack: Stack
    /// The currency MRR is also converted to, with ``rates``.
    public var currency: String?
    /// Per currency, how many units of ``currency`` one unit is worth, in millionths (0.92 = 920_000).
    public var rates: [String: Int64]

    /// Creates options.
    public init(
        commission: Commission = .standard, stack: Stack = .period, currency: String? = nil,
        rates: [String: Int64] = [:]
    ) {
        self.commission = commission
        self.stack = stack
        self.currency = currency
        self.rates = rates
    }

    /// Parses a rate table: a JSON object of ISO 4217 codes to positive numbers (`{"EUR":1.0,"USD":0.92}`: one USD
    /// is 0.92 of the target currency), taken to six decimals.
    /// - Throws: ``ServiceError`` `invalidInput` naming what is wrong.
    public static func rates(json bytes: [UInt8]) throws(ServiceError) -> [String: Int64] {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes, limits: JSONLimits(maxBytes: 1 << 20, maxDepth: 4))
        } catch {
            throw ServiceError(.invalidInput, "the rate table is not JSON: \(error.message)")
        }
        guard case .object(let object) = value else {
            throw ServiceError(.invalidInput, #"the rate table must be a JSON object such as {"EUR":1.0,"USD":0.92}"#)
        }
        var rates: [String: Int64] = [:]
        for (code, rate) in object {
            guard isCurrencyCode(code) else {
                throw ServiceError(.invalidInput, "'\(code)' in the rate table is not an ISO 4217 currency code")
            }
            let number: Double
            switch rate {
            case .integer(let value): number = Double(value)
            case .double(let value): number = value
            default: throw ServiceError(.invalidInput, "the rate of \(code) is not a number")
            }
            guard number > 0, number < 1e9 else {
                throw ServiceError(.invalidInput, "the rate of \(code) must be a positive number below 1e9")
            }
            let micros = Int64((number * 1_000_000).rounded())
            guard micros > 0 else {
                throw ServiceError(
                    .invalidInput, "the rate of \(code) rounds to 0 at the table's six decimals: it would convert to 0")
            }
            guard rates.updateValue(micros, forKey: code) == nil else {
                throw ServiceError(.invalidInput, "\(code) is given twice in the rate table: which rate is meant?")
            }
        }
        return rates
    }

    /// Whether `code` is three capital letters.
    public static func isCurrencyCode(_ code: String) -> Bool {
        code.utf8.count == 3 && code.utf8.allSatisfy { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
    }
}

extension ErrorCode where Domain == ServiceError {
    /// A report was to convert amounts to one currency and the rate table lacks a currency it needs.
    public static var missingRate: Self { Self("missingRate") }
}
