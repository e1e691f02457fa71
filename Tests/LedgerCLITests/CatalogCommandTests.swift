import LedgerCore
import LedgerJSON
import LedgerTesting
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
    // Prices a report could overflow on, or none could pay: Int64's ends, above a million, negative.
    #"[{"productId":"x","period":"monthly","devices":1,"price":"-9223372036854775.808"}]"#,
    #"[{"productId":"x","period":"monthly","devices":1,"price":"9223372036854775.807"}]"#,
    #"[{"productId":"x","period":"monthly","devices":1,"price":"1000000.001"}]"#,
    #"[{"productId":"x","period":"monthly","devices":1,"price":"-1.00"}]"#,
    #"[{"productId":"x","period":"P+5D","devices":1,"price":"1.00"}]"#,
    #"[{"productId":"x","period":"P1000000D","devices":1,"price":"1.00"}]"#,
])
func catalogFileRejectsBadShapes(_ text: String) throws {
    #expect(throws: CLIError.self) { try CatalogFile.parse(try JSONValue.parse(text)) }
}

/// Two entries for one product used to load with the last one winning, silently: the file is refused, naming it.
@Test func aCatalogFileWithADuplicateProductIsRefused() {
    let directory = TemporaryDirectory()
    let path = directory.path + "/catalog.json"
    write(
        path,
        #"[{"productId":"com.visla.gps.monthly_1","period":"monthly","devices":1,"price":"4.90"},"#
            + #"{"productId":"com.visla.gps.annual_1","period":"annual","devices":1,"price":"35.00"},"#
            + #"{"productId":"com.visla.gps.monthly_1","period":"monthly","devices":5,"price":"4.90"}]"#)
    let result = ledger([
        "catalog", "set", path, "--from", "2026-01-01", "--reason", "r", "--operator", "o", "--data",
        directory.path + "/data",
    ])
    #expect(result.code == 1, "a refused file is rejected input, as for every command's FILE")
    #expect(
        result.err.hasPrefix(
            "error: catalog \(path): productId com.visla.gps.monthly_1 appears twice (products 1 and 3)"),
        "\(result.err)")
    #expect(result.out.isEmpty)
}

@Test func moneyParsingNeverOverflows() {
    #expect(Money.milliunits(parsing: "-9223372036854775.808") == nil)
    #expect(Money.milliunits(parsing: "-9223372036854775.807") == -9_223_372_036_854_775_807)
    #expect(Money.milliunits(parsing: "9223372036854775.807") == 9_223_372_036_854_775_807)
    #expect(Money.milliunits(parsing: "9223372036854775.808") == nil)
    #expect(Money.milliunits(parsing: "1000000") == 1_000_000_000)
}
