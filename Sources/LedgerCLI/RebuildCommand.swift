import LedgerJSON
import LedgerService

/// `ledger rebuild`: re-derives every projection, index and snapshot from the log.
enum RebuildCommand: LedgerCommand {
    static let spec = CommandSpec(
        name: "rebuild", summary: "Re-derive every projection, index and snapshot from the log.",
        usage: ["rebuild [--data DIR | --store URL]"],
        options: [SharedOptions.data, SharedOptions.store, SharedOptions.json])

    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        // A data directory that does not exist has nothing to rebuild: a failure, not a new ledger.
        if try Commands.postgresURL(context) == nil { _ = try Commands.existingDataDirectory(context) }
        let ledger = try Commands.openWriter(context, environment: nil)
        defer { ledger.close() }
        let total = ledger.head.seq
        let progress = Progress(label: "rebuild", total: Int(total))
        do {
            try ledger.rebuildIndexes { done in progress.update(Int(done)) }
        } catch {
            throw CLIError.failure(error.message)
        }
        progress.finish()
        do {
            let projection = try ledger.rebuildProjections { done in progress.update(Int(done)) }
            progress.finish()
            let summary: JSONValue = .object([
                "records": .integer(Int64(clamping: total)), "subjects": .int(ledger.subjectCount),
                "users": .int(projection.users), "subscriptions": .int(projection.subscriptions),
            ])
            if context.json {
                context.printJSON(summary)
            } else {
                Terminal.line(
                    "rebuilt indexes and projections from \(total) records: \(projection.users) users, "
                        + "\(projection.subscriptions) subscriptions")
            }
        } catch {
            throw Commands.failure(error)
        }
        return 0
    }
}
