import LedgerCore
import LedgerService
import LedgerTesting
import Testing

/// Charts finance would accept: a title naming the figure and currency, several labelled y ticks, a legend of
/// the stacks, refunds below zero, thinned x labels that always keep the last one.
@Suite struct ReportChartTests {
    let directory = TemporaryDirectory()

    func ledger() throws -> Ledger {
        let ledger = try Ledger.openWriter(at: directory.path, environment: .sandbox)
        var records = ReportFixtures.monthly(user: 1, otid: "1", first: (2026, 1), charges: 12)
        records.append(
            ReportFixtures.record(
                user: 2, otid: "2", txn: "20", product: "com.visla.gps.annual_2", type: "SUBSCRIBED",
                subtype: "INITIAL_BUY", purchase: "2026-03-10T00:00:00Z", expires: "2027-03-10T00:00:00Z",
                price: 70_000, storefront: "DEU"))
        records.append(
            ReportFixtures.record(
                user: 2, otid: "2", txn: "20", product: "com.visla.gps.annual_2", type: "REFUND",
                purchase: "2026-03-10T00:00:00Z", expires: "2027-03-10T00:00:00Z", price: 70_000, storefront: "DEU",
                revoked: "2026-04-02T00:00:00Z", signed: "2026-04-02T00:00:00Z"))
        _ = try ledger.append(records.map { ($0, nil) })
        return ledger
    }

    static func year(_ unit: ReportPeriod.Unit) -> ReportPeriod {
        ReportPeriod(
            from: ReportFixtures.at("2026-01-01T00:00:00Z"), to: ReportFixtures.at("2027-01-01T00:00:00Z"), unit: unit)
    }

    /// The x labels drawn, in order.
    static func xLabels(_ svg: String) -> [String] {
        svg.split(separator: "\n").filter { $0.contains("text-anchor=\"middle\">20") }.compactMap { line in
            line.split(separator: ">").dropFirst().first?.split(separator: "<").first.map(String.init)
        }
    }

    @Test func salesChartsSayWhatAndInWhichCurrencyWithLegendAndTicks() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let table = try ledger.report(.sales, period: Self.year(.month))
        #expect(
            table.charts.map(\.title) == [
                "Sales (EUR), by month (UTC), stacked by period", "Proceeds (EUR), by month (UTC), stacked by period",
            ])
        let sales = table.charts[0]
        #expect(sales.series.map(\.name) == ["monthly", "annual", "refunds"])
        #expect(sales.series[2].values[3] == -70, "April's refund is below zero")
        #expect(sales.net?.values[2] == 74.9, "March: 4.90 + 70.00")
        #expect(sales.net?.values[3] == -65.1, "April: 4.90 − 70.00")
        let svg = table.svg()
        for tick in ["−40", "0", "20", "40", "60"] { #expect(svg.contains(">\(tick)</text>"), "y tick \(tick)") }
        #expect(svg.contains(">EUR</text>"), "the y axis names its currency")
        #expect(svg.contains(">net of refunds</text>") && svg.contains(">refunds</text>"))
        #expect(
            Self.xLabels(svg).prefix(12).reversed() == [
                "2026-01", "2026-02", "2026-03", "2026-04", "2026-05", "2026-06",
                "2026-07", "2026-08", "2026-09", "2026-10", "2026-11", "2026-12",
            ])
    }

    /// 365 daily buckets: a label every few days, the last day's always, none overlapping.
    @Test func dailyLabelsAreThinnedAndKeepTheLastOne() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let svg = try ledger.report(.events, period: Self.year(.day)).svg()
        let labels = Self.xLabels(svg)
        #expect(labels.count >= 8 && labels.count <= 16, "\(labels)")
        #expect(labels.first == "2026-12-31", "drawn from the last backwards")
        #expect(svg.contains("Subscription events (count), by day (UTC)"))
        // Evenly spaced: the gap after the last label (pushed inside the chart) may be a little wider, never double.
        let days = labels.map { ReportFixtures.at("\($0)T00:00:00Z").milliseconds / 86_400_000 }
        let gaps = zip(days, days.dropFirst()).map { $0 - $1 }
        let step = try #require(gaps.last)
        #expect(gaps.dropFirst().allSatisfy { $0 == step }, "\(labels)")
        #expect(gaps[0] >= step && gaps[0] < 2 * step, "\(labels)")
        // Over 365 thin bars the net line is faint, so that the stacks under it stay readable.
        #expect(svg.contains("<polyline") && svg.contains("stroke-opacity=\"0.45\""))
    }

    @Test func theEventsChartHonoursTheBucket() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let chart = try ledger.report(.events, period: Self.year(.month)).charts[0]
        #expect(chart.labels.count == 12)
        #expect(chart.series.map(\.name) == ["Renew", "Subscribe", "Refund"])
        #expect(chart.series[2].values[3] == -1, "the April refund is a loss")
        #expect(chart.series[0].values.reduce(0, +) == 11)
    }

    @Test func activeStacksByDevicesWhenAsked() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let chart = try ledger.report(.active, period: Self.year(.month), options: ReportOptions(stack: .devices))
            .charts[0]
        #expect(chart.title == "Active subscriptions at the end of each bucket, by month (UTC), by devices")
        #expect(chart.series.map(\.name) == ["1 device", "2 devices"])
        #expect(chart.series[1].values[2] == 1, "annual_2 active at the end of March, refunded in April")
        #expect(chart.series[1].values[3] == 0)
    }

    /// A catalog version that gives monthly_1 three devices from July on: the charges made before it stack as one
    /// device, those from July on as three (the version in force at each bucket's end), whatever the latest says.
    @Test func salesStackByTheCatalogVersionInForce() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        var products = Catalog.visla.products
        let index = products.firstIndex { $0.id == "com.visla.gps.monthly_1" }!
        products[index].devices = 3
        _ = try ledger.setCatalog(
            CatalogVersion(
                catalog: Catalog(products: products), effectiveFrom: ReportFixtures.at("2026-07-01T00:00:00Z"),
                reason: "monthly_1 tracks 3 devices", operatorName: "ops"))
        let sales = try ledger.report(.sales, period: Self.year(.month), options: ReportOptions(stack: .devices))
            .charts[0]
        #expect(sales.series.map(\.name) == ["1 device", "2 devices", "3 devices", "refunds"])
        let one = sales.series[0].values
        let three = sales.series[2].values
        #expect(one.prefix(6).allSatisfy { $0 == 4.9 } && one.dropFirst(6).allSatisfy { $0 == 0 })
        #expect(three.prefix(6).allSatisfy { $0 == 0 } && three.dropFirst(6).allSatisfy { $0 == 4.9 })
        #expect(sales.series[1].values[2] == 70, "annual_2 bought in March")
    }
}
