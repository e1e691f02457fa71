import LedgerCore
import Testing

/// The built-in catalog is the version in force from the beginning of time in every log that records no catalog
/// version: changing it in code would change the answers of those logs' past. Its products are pinned here; a new
/// price, period or device count goes into the log with `ledger catalog set`, never into this table.
@Suite("The built-in catalog")
struct BuiltInCatalogTests {
    static let pinned = [
        "com.visla.gps.monthly_1 autoRenewable monthly 1 4900 EUR",
        "com.visla.gps.semiannual_1 autoRenewable semiannual 1 23500 EUR",
        "com.visla.gps.annual_1 autoRenewable annual 1 35000 EUR",
        "com.visla.gps.monthly_2 autoRenewable monthly 2 9800 EUR",
        "com.visla.gps.semiannual_2 autoRenewable semiannual 2 47000 EUR",
        "com.visla.gps.annual_2 autoRenewable annual 2 70000 EUR",
        "com.visla.gps.monthly_3 autoRenewable monthly 3 11700 EUR",
        "com.visla.gps.semiannual_3 autoRenewable semiannual 3 56100 EUR",
        "com.visla.gps.annual_3 autoRenewable annual 3 84000 EUR",
        "com.visla.gps.monthly_4 autoRenewable monthly 4 15600 EUR",
        "com.visla.gps.semiannual_4 autoRenewable semiannual 4 74800 EUR",
        "com.visla.gps.annual_4 autoRenewable annual 4 112000 EUR",
        "com.visla.gps.monthly_5 autoRenewable monthly 5 19500 EUR",
        "com.visla.gps.semiannual_5 autoRenewable semiannual 5 93500 EUR",
        "com.visla.gps.annual_5 autoRenewable annual 5 140000 EUR",
        "com.visla.gps.monthly_6 autoRenewable monthly 6 23400 EUR",
        "com.visla.gps.semiannual_6 autoRenewable semiannual 6 112200 EUR",
        "com.visla.gps.annual_6 autoRenewable annual 6 168000 EUR",
        "com.visla.gps.monthly_7 autoRenewable monthly 7 27300 EUR",
        "com.visla.gps.semiannual_7 autoRenewable semiannual 7 130900 EUR",
        "com.visla.gps.annual_7 autoRenewable annual 7 196000 EUR",
        "com.visla.gps.monthly_8 autoRenewable monthly 8 31200 EUR",
        "com.visla.gps.semiannual_8 autoRenewable semiannual 8 149600 EUR",
        "com.visla.gps.annual_8 autoRenewable annual 8 224000 EUR",
        "com.visla.gps.monthly_9 autoRenewable monthly 9 35100 EUR",
        "com.visla.gps.semiannual_9 autoRenewable semiannual 9 168300 EUR",
        "com.visla.gps.annual_9 autoRenewable annual 9 252000 EUR",
        "com.visla.gps.monthly_10 autoRenewable monthly 10 39000 EUR",
        "com.visla.gps.semiannual_10 autoRenewable semiannual 10 187000 EUR",
        "com.visla.gps.annual_10 autoRenewable annual 10 280000 EUR",
    ]

    @Test func isPinnedBecauseOldLogsReplayWithIt() {
        let products = CatalogVersion.builtIn.catalog.products.map {
            "\($0.id) \($0.kind.rawValue) \($0.period.name) \($0.devices) \($0.price.milliunits) \($0.price.currency)"
        }
        #expect(products == Self.pinned)
        #expect(CatalogVersion.builtIn.effectiveFrom == .distantPast)
    }
}
