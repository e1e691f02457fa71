extension Catalog {
    /// Visla GPS Tracking: 30 auto-renewable products `com.visla.gps.{monthly,semiannual,annual}_{1…10}`.
    ///
    /// Prices in EUR from the StoreKit 2 integration guide. The guide lists every monthly price and the
    /// semiannual and annual prices for 1, 2 and 10 devices (``PriceSource/seed``). The others are
    /// derived from the guide's own rule (``PriceSource/derived``): one and two devices pay 4.90 / 23.50 /
    /// 35.00 each per month / six months / year; from three devices on the rate is the 10-device price
    /// divided by ten, 3.90 / 18.70 / 28.00 per device.
    public static let visla: Catalog = {
        var products: [Product] = []
        for devices in 1...10 {
            for period in [Period.monthly, .semiannual, .annual] {
                products.append(vislaProduct(period: period, devices: devices))
            }
        }
        return Catalog(products: products)
    }()

    /// The product identifier of a Visla plan.
    public static func vislaProductId(period: Period, devices: Int) -> String {
        "com.visla.gps.\(period.name)_\(devices)"
    }

    private static func vislaProduct(period: Period, devices: Int) -> Product {
        // Per-device rates in milliunits of EUR: (1–2 devices, 3+ devices).
        let rate: (small: Int64, large: Int64)
        switch period {
        case .monthly: rate = (4_900, 3_900)
        case .semiannual: rate = (23_500, 18_700)
        default: rate = (35_000, 28_000)
        }
        let perDevice = devices <= 2 ? rate.small : rate.large
        let inSeed = period == .monthly || devices <= 2 || devices == 10
        return Product(
            id: vislaProductId(period: period, devices: devices), period: period, devices: devices,
            price: Money(milliunits: perDevice * Int64(devices), currency: "EUR"),
            priceSource: inSeed ? .seed : .derived)
    }
}
