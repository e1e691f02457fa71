import LedgerCore
import LedgerJSON

extension Product {
    /// The product as `ledger catalog --json` prints it and `ledger catalog set` reads it:
    /// `{"productId","period","devices","price","currency","priceSource"}`, with `"kind"` for a non-renewing one.
    public var json: JSONValue {
        var object: JSONObject = [
            "productId": .string(id), "period": .string(period.name), "devices": .int(devices),
            "price": .string(price.decimalString), "currency": .string(price.currency),
            "priceSource": .string(priceSource.rawValue),
        ]
        if kind != .autoRenewable { object["kind"] = .string(kind.rawValue) }
        return .object(object)
    }
}

extension CatalogVersion {
    /// The version as a record's JSON holds it: its effective time (null from the beginning of time), reason,
    /// operator and products.
    public var json: JSONValue {
        .object([
            "effectiveFrom": effectiveFrom == .distantPast ? .null : .string(effectiveFrom.iso8601),
            "reason": .string(reason), "operator": .string(operatorName),
            "products": .array(catalog.products.map(\.json)),
        ])
    }
}
