import LedgerCore
import LedgerService
import LedgerTesting
import Testing

/// `ledger report` from the outside: its flags, its shapes (CSV, JSON, SVG, HTML) and its usage errors.
@Suite struct ReportCommandTests {
    let workspace = Workspace()

    /// User 1 pays 4.90 EUR a month from 2026-01-05 (Italy); user 2 60.00 USD a year from 2026-01-06 (USA).
    func populate() throws {
        let ledger = try Ledger.openWriter(at: workspace.data, environment: .sandbox)
        defer { ledger.close() }
        func record(
            _ user: Int64, _ product: String, _ purchase: String, _ expires: String, _ price: Int64,
            _ currency: String, _ storefront: String
        ) -> LedgerRecord {
            let token = AccountToken.token(forUser: user)
            let signed = Instant(parsing: purchase)!
            return LedgerRecord(
                environment: .sandbox, source: .notification, idempotencyKey: "buy-\(user)",
                subject: Subject(originalTransactionId: "\(user)", appAccountToken: token),
                notification: NotificationFacts(
                    type: "SUBSCRIBED", subtype: "INITIAL_BUY", uuid: "buy-\(user)", signedDate: signed),
                transaction: TransactionFacts(
                    transactionId: "\(user)0", originalTransactionId: "\(user)", productId: product,
                    purchaseDate: signed, expiresDate: Instant(parsing: expires)!, appAccountToken: token,
                    inAppOwnershipType: "PURCHASED", price: price, currency: currency, transactionReason: "PURCHASE",
                    storefront: storefront, signedDate: signed))
        }
        _ = try ledger.append([
            (
                record(
                    1, "com.visla.gps.monthly_1", "2026-01-05T00:00:00Z", "2026-04-05T00:00:00Z", 4900, "EUR", "ITA"),
                nil
            ),
            (
                record(
                    2, "com.visla.gps.annual_1", "2026-01-06T00:00:00Z", "2027-01-06T00:00:00Z", 60_000, "USD", "USA"),
                nil
            ),
        ])
    }

    func report(_ kind: String, _ extra: [String]) -> CommandResult {
        ledger(
            [
                "report", kind, "--data", workspace.data, "--from", "2026-01-01T08:00:00Z", "--to",
                "2026-03-01T08:00:00Z",
            ]
                + extra)
    }

    @Test func salesAsCSVCarryStorefrontCurrencyAndProceeds() throws {
        try populate()
        let result = report("sales", ["--by", "month", "--timezone", "pacific", "--csv"])
        #expect(result.code == 0, "\(result.err)")
        #expect(
            result.out.split(separator: "\n").map(String.init) == [
                "period,productId,storefront,currency,purchases,renewals,upgrades,downgrades,refunds,units,sales,"
                    + "refunded,net,proceeds",
                "2026-01,com.visla.gps.annual_1,USA,USD,1,0,0,0,0,1,60.00,0.00,60.00,42.00",
                "2026-01,com.visla.gps.monthly_1,ITA,EUR,1,0,0,0,0,1,4.90,0.00,4.90,3.43",
            ])
        let small = report("sales", ["--by", "month", "--commission", "small-business", "--json"])
        #expect(small.json?.array?.first?["proceeds"] == "51.00", "\(small.out)")
    }

    @Test func mrrConvertsWithARateFileAndNamesAMissingRate() throws {
        try populate()
        let rates = workspace.file("rates.json", [#"{"USD":0.92}"#])
        let converted = report("mrr", ["--by", "month", "--currency", "EUR", "--rates", rates, "--json"])
        #expect(converted.code == 0, "\(converted.err)")
        let all = converted.json?.array?.first { $0["currency"] == "ALL" }
        // January: 4.90 EUR + 60.00 / 12 × 0.92 = 4.60 → 9.50 EUR.
        #expect(all?["convertedMrr"] == "9.50", "\(converted.out)")
        let partial = workspace.file("gbp.json", [#"{"GBP":1.15}"#])
        let missing = report("mrr", ["--currency", "EUR", "--rates", partial])
        #expect(missing.code == 1, "the file lacks a rate: a bad file, as for every FILE")
        #expect(missing.err.hasPrefix("error: --rates \(partial): no exchange rate for USD"), "\(missing.err)")
        let absent = report("mrr", ["--currency", "EUR", "--rates", workspace.directory.path + "/none.json"])
        #expect(absent.code == 1)
        #expect(absent.err.hasPrefix("error: --rates: "), "\(absent.err)")
    }

    @Test func htmlIsOneSelfContainedPageWithChartsAndTable() throws {
        try populate()
        let result = report("sales", ["--by", "week", "--stack", "devices", "--html"])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.out.hasPrefix("<!DOCTYPE html>"))
        #expect(result.out.contains("<svg") && result.out.contains("<table>"))
        #expect(result.out.contains("Sales (EUR), by week (UTC), stacked by devices"))
        #expect(!result.out.contains("src=") && !result.out.contains("href="), "nothing to fetch")
    }

    @Test(arguments: [
        (["--by", "year"], "--by must be day, week, month or fiscal-month"),
        (["--timezone", "mars"], "--timezone must be UTC or pacific"),
        (["--commission", "half"], "--commission must be standard or small-business"),
        (["--stack", "colour"], "--stack must be period or devices"),
        (["--currency", "EUR"], "--currency C and --rates FILE go together"),
        (["--svg", "--html"], "choose one of --csv, --json, --svg and --html"),
    ])
    func badFlagsAreUsageErrors(flags: [String], message: String) throws {
        try populate()
        let result = report("sales", flags)
        #expect(result.code == 64)
        #expect(result.err.contains(message), "\(result.err)")
    }
}
