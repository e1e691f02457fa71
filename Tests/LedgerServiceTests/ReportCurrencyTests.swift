import LedgerCore
import LedgerService
import LedgerTesting
import Testing

/// MRR from the prices Apple charged, per currency and converted with an operator's rate table.
@Suite struct ReportCurrencyTests {
    let directory = TemporaryDirectory()

    /// User 1: monthly_1 at 4.90 EUR from 2026-01-05. User 2: annual_1 at 60.00 USD from 2026-01-06. User 3:
    /// monthly_1 at an introductory 1.00 EUR from 2026-01-10, renewed at 4.90 EUR on 2026-02-10.
    func ledger() throws -> Ledger {
        let ledger = try Ledger.openWriter(at: directory.path, environment: .sandbox)
        let records = [
            ReportFixtures.record(
                user: 1, otid: "1", txn: "10", product: "com.visla.gps.monthly_1", type: "SUBSCRIBED",
                subtype: "INITIAL_BUY", purchase: "2026-01-05T00:00:00Z", expires: "2026-04-05T00:00:00Z",
                price: 4900, storefront: "ITA"),
            ReportFixtures.record(
                user: 2, otid: "2", txn: "20", product: "com.visla.gps.annual_1", type: "SUBSCRIBED",
                subtype: "INITIAL_BUY", purchase: "2026-01-06T00:00:00Z", expires: "2027-01-06T00:00:00Z",
                price: 60_000, currency: "USD", storefront: "USA"),
            ReportFixtures.record(
                user: 3, otid: "3", txn: "30", product: "com.visla.gps.monthly_1", type: "SUBSCRIBED",
                subtype: "INITIAL_BUY", purchase: "2026-01-10T00:00:00Z", expires: "2026-02-10T00:00:00Z",
                price: 1000, storefront: "ITA", offerType: 1, offerDiscount: "PAY_AS_YOU_GO"),
            ReportFixtures.record(
                user: 3, otid: "3", txn: "31", product: "com.visla.gps.monthly_1", type: "DID_RENEW",
                purchase: "2026-02-10T00:00:00Z", expires: "2026-03-10T00:00:00Z", price: 4900, storefront: "ITA",
                reason: "RENEWAL"),
        ]
        _ = try ledger.append(records.map { ($0, nil) })
        return ledger
    }

    let months = ReportPeriod(
        from: ReportFixtures.at("2026-01-01T00:00:00Z"), to: ReportFixtures.at("2026-03-01T00:00:00Z"), unit: .month)

    /// January's end: EUR 4.90 + 1.00 (the introductory price charged) = 5.90 from 2 subscriptions; USD 60.00 / 12
    /// = 5.00. February's end: EUR 4.90 + 4.90 = 9.80.
    @Test func mrrIsPerCurrencyFromThePricesCharged() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        #expect(
            try ledger.report(.mrr, period: months).texts == [
                ["2026-01", "2026-01-31T23:59:59.999Z", "EUR", "5.90", "2"],
                ["2026-01", "2026-01-31T23:59:59.999Z", "USD", "5.00", "1"],
                ["2026-02", "2026-02-28T23:59:59.999Z", "EUR", "9.80", "2"],
                ["2026-02", "2026-02-28T23:59:59.999Z", "USD", "5.00", "1"],
            ])
    }

    /// With `{"USD":0.92}` to EUR: 5.00 USD = 4.60 EUR; January 5.90 + 4.60 = 10.50 EUR.
    @Test func mrrConvertsToOneCurrencyWithTheRateTable() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let rates = try ReportOptions.rates(json: Array(#"{"USD":0.92}"#.utf8))
        #expect(rates == ["USD": 920_000])
        let table = try ledger.report(.mrr, period: months, options: ReportOptions(currency: "EUR", rates: rates))
        #expect(
            table.columns == [
                "period", "asOf", "currency", "mrr", "payingSubscriptions", "rate", "convertedCurrency", "convertedMrr",
            ])
        #expect(
            Array(table.texts.prefix(3)) == [
                ["2026-01", "2026-01-31T23:59:59.999Z", "EUR", "5.90", "2", "1.0", "EUR", "5.90"],
                ["2026-01", "2026-01-31T23:59:59.999Z", "USD", "5.00", "1", "0.92", "EUR", "4.60"],
                ["2026-01", "2026-01-31T23:59:59.999Z", "ALL", "", "3", "", "EUR", "10.50"],
            ])
        #expect(table.charts.map(\.unit) == ["EUR per month", "USD per month", "EUR per month"])
    }

    @Test func aCurrencyWithoutARateIsAnErrorNamingIt() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        #expect {
            _ = try ledger.report(
                .mrr, period: months, options: ReportOptions(currency: "EUR", rates: ["GBP": 1_150_000]))
        } throws: { error in
            guard let error = error as? ServiceError else { return false }
            return error.code == .missingRate && error.message.contains("no exchange rate for USD")
        }
    }

    @Test(arguments: [
        #"[1]"#, #"{"usd":1}"#, #"{"USD":-1}"#, #"{"USD":"0.9"}"#, "not json", #"{"USD":0.0000001}"#,
        #"{"USD":0.92,"USD":0.5}"#,
    ])
    func aBadRateTableIsRefused(text: String) {
        #expect(throws: ServiceError.self) { _ = try ReportOptions.rates(json: Array(text.utf8)) }
    }
}
