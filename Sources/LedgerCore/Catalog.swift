/// The products the ledger knows, keyed by product identifier.
///
/// The catalog is data: the default is Visla's 30 plans (``Catalog/visla``); another catalog can be
/// loaded from a file. A product missing from the catalog is still recorded and shown with
/// `productKnown: false` and 0 devices.
public struct Catalog: Sendable, Hashable {
    /// The products in their catalog order.
    public let products: [Product]
    private let byId: [String: Int]

    /// Creates a catalog; a later duplicate identifier replaces an earlier one.
    public init(products: [Product]) {
        var ordered: [Product] = []
        var index: [String: Int] = [:]
        for product in products {
            if let existing = index[product.id] {
                ordered[existing] = product
            } else {
                index[product.id] = ordered.count
                ordered.append(product)
            }
        }
        self.products = ordered
        self.byId = index
    }

    /// The product with this identifier, if the catalog knows it.
    public func product(id: String) -> Product? {
        byId[id].map { products[$0] }
    }

    /// The number of devices a product allows: 0 for an unknown product.
    public func devices(for productId: String) -> Int {
        product(id: productId)?.devices ?? 0
    }
}
