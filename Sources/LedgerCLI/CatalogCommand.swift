import LedgerCore
import LedgerJSON

/// `ledger catalog`: the products with device limits and prices.
enum CatalogCommand: LedgerCommand {
    static let spec = CommandSpec(
        name: "catalog", summary: "The products and their device limits and prices.",
        usage: ["catalog [--json] [--catalog FILE]"], options: [SharedOptions.json, SharedOptions.catalog])

    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let products = context.catalog.products
        if context.json {
            context.printJSON(.array(products.map(CatalogFile.json(for:))))
            return 0
        }
        Terminal.line("PRODUCT                           PERIOD       DEVICES   PRICE      SOURCE")
        for product in products {
            Terminal.line(
                product.id.padding(to: 34) + product.period.name.padding(to: 13)
                    + String(product.devices).padding(to: 10)
                    + (product.price.currency + " " + product.price.decimalString).padding(to: 11)
                    + product.priceSource.rawValue)
        }
        return 0
    }
}
