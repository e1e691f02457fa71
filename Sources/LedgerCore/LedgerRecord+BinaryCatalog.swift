/// The catalog part of a record (parts bit 8, see `LedgerRecord+Binary.swift`):
///
/// ```text
/// catalog  = effectiveFrom:instant  reason:str  operator:str  count:varint (≤ 10000)  product{count}
/// product  = productId:str  kind:u8  period:str  devices:varint (≤ 1000)  price:signed  currency:str
///            priceSource:u8
///     kind: 0 autoRenewable, 1 nonRenewing; priceSource: 0 seed, 1 derived, 2 declared;
///     period: a name `Period(named:)` reads (monthly, semiannual, annual, weekly, P<n>D/W/M/Y)
/// ```
///
/// Period names and currencies repeat from product to product: each is written once and referred back to.
extension CatalogVersion {
    /// The most products one version may hold.
    static let maxProducts = 10_000
    /// The most devices one product may give.
    static let maxDevices = 1_000

    func encode(into writer: inout BinaryWriter) {
        writer.writeInstant(effectiveFrom)
        writer.writeString(reason)
        writer.writeString(operatorName)
        writer.writeVarint(UInt64(catalog.products.count))
        var seen: [String: BinaryWriter.StringHandle] = [:]
        func write(_ text: String, into writer: inout BinaryWriter) {
            seen[text] = writer.writeString(text, reusing: seen[text])
        }
        for product in catalog.products {
            writer.writeString(product.id)
            writer.writeByte(product.kind == .nonRenewing ? 1 : 0)
            write(product.period.name, into: &writer)
            writer.writeVarint(UInt64(max(0, product.devices)))
            writer.writeSigned(product.price.milliunits)
            write(product.price.currency, into: &writer)
            writer.writeByte(Self.sourceByte(product.priceSource))
        }
    }

    static func decode(_ reader: inout BinaryReader) throws(CoreError) -> CatalogVersion {
        let effectiveFrom = try reader.readInstant()
        let reason = try reader.readString()
        let operatorName = try reader.readString()
        let count = try reader.readVarint()
        guard count <= UInt64(maxProducts) else {
            throw CoreError(.malformed, "a catalog of \(count) products is over \(maxProducts); the record is damaged")
        }
        var products: [Product] = []
        products.reserveCapacity(Int(count))
        for _ in 0..<Int(count) {
            let id = try reader.readString()
            let kind: ProductKind
            switch try reader.readByte() {
            case 0: kind = .autoRenewable
            case 1: kind = .nonRenewing
            case let other: throw CoreError(.malformed, "unknown product kind \(other); the record is damaged")
            }
            let name = try reader.readString()
            guard let period = Period(named: name) else {
                throw CoreError(.malformed, "unknown catalog period '\(name)'; the record is damaged")
            }
            let devices = try reader.readVarint()
            guard devices <= UInt64(maxDevices) else {
                throw CoreError(
                    .malformed, "a product of \(devices) devices is over \(maxDevices); the record is damaged")
            }
            let price = try reader.readSigned()
            let currency = try reader.readString()
            let source: PriceSource
            switch try reader.readByte() {
            case 0: source = .seed
            case 1: source = .derived
            case 2: source = .declared
            case let other: throw CoreError(.malformed, "unknown price source \(other); the record is damaged")
            }
            products.append(
                Product(
                    id: id, period: period, devices: Int(devices), price: Money(milliunits: price, currency: currency),
                    priceSource: source, kind: kind))
        }
        return CatalogVersion(
            catalog: Catalog(products: products), effectiveFrom: effectiveFrom, reason: reason,
            operatorName: operatorName)
    }

    private static func sourceByte(_ source: PriceSource) -> UInt8 {
        switch source {
        case .seed: return 0
        case .derived: return 1
        case .declared: return 2
        }
    }
}
