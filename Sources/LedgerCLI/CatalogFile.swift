import LedgerCore
import LedgerJSON
import LedgerService

/// The catalog's file form (`ledger catalog set FILE`, `ledger simulate --catalog FILE`): the shape `ledger catalog
/// --json` prints, an object whose `"products"` are
/// `[{"productId","period","devices","price","currency","priceSource"}]` (or that array alone), plus an optional `"kind"`
/// (`autoRenewable`, default, or `nonRenewing`). `period` is `monthly`, `semiannual`, `annual`, `weekly` or an
/// ISO 8601 duration (`P1W`, `P3M`, `P1Y`); a non-renewing product's period is the fixed time one purchase buys.
/// Each `productId` appears once.
enum CatalogFile {
    static let maxBytes = 4 << 20
    /// The highest price a catalog may give a product: a million in its currency.
    static let maxPriceMilliunits: Int64 = 1_000_000_000

    static func load(path: String) throws(CLIError) -> Catalog {
        let bytes = try InputFile.read(path, limit: maxBytes)
        do {
            return try parse(JSONValue.parse(bytes))
        } catch let error as CLIError {
            throw CLIError.failure("catalog \(path): \(error.message)")
        } catch {
            throw CLIError.failure("catalog \(path) is not valid JSON: \(error)")
        }
    }

    static func parse(_ json: JSONValue) throws(CLIError) -> Catalog {
        // `ledger catalog --json` prints an object whose "products" are the array.
        guard let items = json.array ?? json["products"]?.array else {
            throw CLIError.failure("expected a JSON array of products, or an object with one under \"products\"")
        }
        var products: [Product] = []
        // Each productId once: with two entries for one id, which devices and price hold is anyone's guess.
        var positions: [String: Int] = [:]
        for (i, item) in items.enumerated() {
            guard let id = item["productId"]?.string, !id.isEmpty else {
                throw CLIError.failure("product \(i + 1) has no productId")
            }
            if let first = positions.updateValue(i, forKey: id) {
                throw CLIError.failure(
                    "productId \(id) appears twice (products \(first + 1) and \(i + 1)): give each product once")
            }
            guard let periodName = item["period"]?.string, let period = Period(named: periodName) else {
                throw CLIError.failure(
                    "product \(id): period must be monthly, semiannual, annual, weekly or P<n>D/W/M/Y")
            }
            guard let devices = item["devices"]?.int64, devices >= 0, devices <= 1000 else {
                throw CLIError.failure("product \(id): devices must be an integer from 0 to 1000")
            }
            let priceText = item["price"]?.string ?? item["price"]?.double.map { "\($0)" }
            // Prices are summed and scaled by reports (MRR): bounded far above any App Store price so that no
            // sum of them can overflow.
            guard let priceText, let milliunits = Money.milliunits(parsing: priceText),
                (0...Self.maxPriceMilliunits).contains(milliunits)
            else {
                throw CLIError.failure(
                    "product \(id): price must be a decimal string such as \"4.90\", from 0 to 1000000")
            }
            let currency = item["currency"]?.string ?? "EUR"
            let source = item["priceSource"]?.string.flatMap(PriceSource.init(rawValue:)) ?? .declared
            let kind =
                try item["kind"]?.string.map { (text: String) throws(CLIError) -> ProductKind in
                    guard let kind = ProductKind(rawValue: text) else {
                        throw CLIError.failure("product \(id): kind must be autoRenewable or nonRenewing")
                    }
                    return kind
                } ?? .autoRenewable
            products.append(
                Product(
                    id: id, period: period, devices: Int(devices),
                    price: Money(milliunits: milliunits, currency: currency),
                    priceSource: source, kind: kind))
        }
        return Catalog(products: products)
    }

    static func json(for product: Product) -> JSONValue { product.json }
}
