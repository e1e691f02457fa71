import LedgerCore
import LedgerJSON
import Testing

@testable import LedgerCLI

@Test func catalogFileRoundTripsTheCatalogJSON() throws {
    let json = JSONValue.array(Catalog.visla.products.map(CatalogFile.json(for:)))
    let parsed = try CatalogFile.parse(try JSONValue.parse(json.serialized()))
    #expect(parsed == Catalog.visla)
}

@Test func catalogFileDeclaresNonRenewingProducts() throws {
    let text =
        #"[{"productId":"com.visla.gps.week_pass","period":"P1W","devices":2,"price":"3.00","currency":"EUR","kind":"nonRenewing"}]"#
    let catalog = try CatalogFile.parse(try JSONValue.parse(text))
    let product = try #require(catalog.product(id: "com.visla.gps.week_pass"))
    #expect(product.kind == .nonRenewing)
    #expect(product.period.days == 7)
    #expect(product.priceSource == .declared)
    #expect(product.price.milliunits == 3000)
}

@Test(arguments: [
    #"{"productId":"x"}"#, #"[{"period":"monthly","devices":1,"price":"1.00"}]"#,
    #"[{"productId":"x","period":"fortnightly","devices":1,"price":"1.00"}]"#,
    #"[{"productId":"x","period":"monthly","devices":-1,"price":"1.00"}]"#,
    #"[{"productId":"x","period":"monthly","devices":1,"price":"1.0001"}]"#,
])
func catalogFileRejectsBadShapes(_ text: String) throws {
    #expect(throws: CLIError.self) { try CatalogFile.parse(try JSONValue.parse(text)) }
}
