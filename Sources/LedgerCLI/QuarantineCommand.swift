import LedgerJSON
import LedgerService

/// `ledger quarantine`: the rejected payloads with time, status and reason.
enum QuarantineCommand: LedgerCommand {
    static let spec = CommandSpec(
        name: "quarantine", summary: "List rejected payloads with time, status and reason.",
        usage: ["quarantine [--data DIR] [--json]"],
        options: [SharedOptions.data, SharedOptions.json])

    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let directory = try Commands.existingDataDirectory(context)
        let (items, unreadable): ([Quarantine.Item], Int)
        do {
            (items, unreadable) = try Quarantine(dataDirectory: directory).read()
        } catch {
            throw Commands.failure(error)
        }
        if unreadable > 0 {
            Terminal.err(
                "warning: \(unreadable) line\(unreadable == 1 ? "" : "s") of \(directory)/quarantine could not be read "
                    + "(a torn last line after a crash, or damage) and \(unreadable == 1 ? "is" : "are") not listed\n")
        }
        if context.json {
            context.printJSON(
                .array(
                    items.map { item in
                        var fields: JSONObject = [
                            "at": .string(item.at.iso8601), "status": .string(item.status),
                            "message": .string(item.message), "sha256": .string(item.sha256), "size": .int(item.size),
                            "body": .string(item.body),
                        ]
                        if let base64 = item.bodyBase64 { fields["bodyBase64"] = .string(base64) }
                        return .object(fields)
                    }))
            return 0
        }
        if items.isEmpty { Terminal.line("the quarantine is empty") }
        for item in items {
            Terminal.line(
                "\(item.at.iso8601)  \(item.status)  \(item.message)  (\(item.size) bytes, sha256 \(item.sha256.prefix(16))…)"
            )
        }
        return 0
    }
}
