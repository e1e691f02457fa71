import LedgerCore
import LedgerCrypto
import LedgerJSON
import LedgerService
import LedgerSystem

/// `ledger digest`: the head sequence and hash, to pin outside the ledger.
enum DigestCommand: LedgerCommand {
    static let spec = CommandSpec(
        name: "digest", summary: "The head sequence and hash, to pin outside the ledger.",
        usage: ["digest [--data DIR | --store URL] [--json]"],
        options: [SharedOptions.data, SharedOptions.store, SharedOptions.json])

    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let ledger = try Commands.openReader(context)
        defer { ledger.close() }
        let head = ledger.head
        let at = Instant(milliseconds: head.seq == 0 ? SystemClock.wallMilliseconds() : ledger.headTime)
        let digest: JSONValue = .object([
            "seq": .integer(Int64(clamping: head.seq)), "head": .string(Hex.encode(head.hash)),
            "at": .string(at.iso8601),
        ])
        if context.json {
            context.printJSON(digest)
        } else {
            Terminal.line("seq \(head.seq)\nhead \(Hex.encode(head.hash))\nat \(at.iso8601)")
        }
        return 0
    }
}
