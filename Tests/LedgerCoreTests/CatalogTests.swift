import LedgerCore
import Testing

@Suite("Catalog")
struct CatalogTests {
    static let seedPrices: [(Period, Int, String)] = [
        (.monthly, 1, "4.90"), (.monthly, 2, "9.80"), (.monthly, 3, "11.70"), (.monthly, 4, "15.60"),
        (.monthly, 5, "19.50"), (.monthly, 6, "23.40"), (.monthly, 7, "27.30"), (.monthly, 8, "31.20"),
        (.monthly, 9, "35.10"), (.monthly, 10, "39.00"), (.semiannual, 1, "23.50"), (.semiannual, 2, "47.00"),
        (.semiannual, 10, "187.00"), (.annual, 1, "35.00"), (.annual, 2, "70.00"), (.annual, 10, "280.00"),
    ]

    @Test("30 products, one per period and device count")
    func products() {
        let catalog = Catalog.visla
        #expect(catalog.products.count == 30)
        for period in [Period.monthly, .semiannual, .annual] {
            for devices in 1...10 {
                let id = "com.visla.gps.\(period.name)_\(devices)"
                let product = catalog.product(id: id)
                #expect(product?.devices == devices, "\(id)")
                #expect(product?.period == period, "\(id)")
                #expect(product?.kind == .autoRenewable)
                #expect(catalog.devices(for: id) == devices)
            }
        }
        #expect(catalog.product(id: "com.visla.gps.weekly_1") == nil)
        #expect(catalog.devices(for: "com.visla.gps.weekly_1") == 0)
    }

    @Test("every seed price is exact")
    func seedPricesAreExact() {
        for (period, devices, price) in Self.seedPrices {
            let product = Catalog.visla.product(id: Catalog.vislaProductId(period: period, devices: devices))
            #expect(product?.price.decimalString == price, "\(period) \(devices)")
            #expect(product?.price.currency == "EUR")
            #expect(product?.priceSource == .seed, "\(period) \(devices)")
        }
    }

    @Test("the other prices are derived: 18.70 and 28.00 per device, marked derived")
    func derivedPrices() {
        for devices in 3...9 {
            let semiannual = Catalog.visla.product(id: Catalog.vislaProductId(period: .semiannual, devices: devices))
            #expect(semiannual?.price.milliunits == 18_700 * Int64(devices))
            #expect(semiannual?.priceSource == .derived)
            let annual = Catalog.visla.product(id: Catalog.vislaProductId(period: .annual, devices: devices))
            #expect(annual?.price.milliunits == 28_000 * Int64(devices))
            #expect(annual?.priceSource == .derived)
        }
        #expect(Catalog.visla.products.filter { $0.priceSource == .seed }.count == 16)
    }
}
