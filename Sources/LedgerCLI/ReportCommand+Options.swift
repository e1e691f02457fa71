import LedgerCore
import LedgerService

/// The options of `ledger report` beyond its range: buckets, time zone, commission, stacks and conversion.
enum ReportFlags {
    /// `--by UNIT`.
    static let by = OptionSpec(
        "--by", value: "UNIT", "day, week (Sunday to Saturday), month or fiscal-month (Apple's).")
    /// `--timezone ZONE`.
    static let timezone = OptionSpec(
        "--timezone", value: "ZONE",
        "UTC (default) or pacific: Pacific Time with daylight saving, as App Store Connect.")
    /// `--commission PLAN`.
    static let commission = OptionSpec(
        "--commission", value: "PLAN",
        "standard (30%, 15% after a year of paid service; default) or small-business (15%).")
    /// `--stack BY`.
    static let stack = OptionSpec("--stack", value: "BY", "What charts stack: period (default) or devices.")
    /// `--currency C`.
    static let currency = OptionSpec("--currency", value: "C", "mrr: also convert to currency C with --rates.")
    /// `--rates FILE`.
    static let rates = OptionSpec(
        "--rates", value: "FILE", #"mrr: a JSON rate table, {"USD":0.92,…}: 1 unit = RATE of --currency."#)
    /// `--html`.
    static let html = OptionSpec("--html", "One self-contained HTML page (charts, definitions, table) on stdout.")

    static let all = [by, timezone, commission, stack, currency, rates, html]

    /// The period from `--by` and `--timezone`.
    static func period(_ context: CommandContext, from: Instant, to: Instant) throws(CLIError) -> ReportPeriod {
        let unitName = try context.value(by) ?? "day"
        guard let unit = ReportPeriod.Unit(rawValue: unitName) else {
            throw CLIError.usage("--by must be day, week, month or fiscal-month", command: "report")
        }
        let zoneName = try context.value(timezone) ?? "utc"
        guard let zone = ReportPeriod.TimeZone(rawValue: zoneName.lowercased()) else {
            throw CLIError.usage("--timezone must be UTC or pacific", command: "report")
        }
        return ReportPeriod(from: from, to: to, unit: unit, timeZone: zone)
    }

    /// The options from `--commission`, `--stack`, `--currency` and `--rates`.
    static func options(_ context: CommandContext, kind: ReportKind) throws(CLIError) -> ReportOptions {
        var options = ReportOptions()
        if let text = try context.value(commission) {
            guard let value = ReportOptions.Commission(rawValue: text) else {
                throw CLIError.usage("--commission must be standard or small-business", command: "report")
            }
            options.commission = value
        }
        if let text = try context.value(stack) {
            guard let value = ReportOptions.Stack(rawValue: text) else {
                throw CLIError.usage("--stack must be period or devices", command: "report")
            }
            options.stack = value
        }
        let target = try context.value(currency)
        let file = try context.value(rates)
        guard (target == nil) == (file == nil) else {
            throw CLIError.usage("--currency C and --rates FILE go together", command: "report")
        }
        if let target, let file {
            guard kind == .mrr else {
                throw CLIError.usage("--currency and --rates apply to the mrr report", command: "report")
            }
            guard ReportOptions.isCurrencyCode(target) else {
                throw CLIError.usage("--currency '\(target)' is not an ISO 4217 code such as EUR", command: "report")
            }
            options.currency = target
            do {
                options.rates = try ReportOptions.rates(json: try InputFile.read(file, limit: 1 << 20))
            } catch let error as CLIError {
                throw CLIError.failure("--rates: \(error.message)")
            } catch let error as ServiceError {
                throw CLIError.failure("--rates \(file): \(error.message)")
            } catch {
                throw CLIError.failure("--rates \(file): \(error)")
            }
        }
        return options
    }
}
