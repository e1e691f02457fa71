import LedgerSystem
import LedgerTesting

// The HTTP crash test's tools (see `Scripts/crash-test --http`) and the load test's body generator
// (`Scripts/load --real`).
#if canImport(Glibc)
    import Glibc
#endif

/// `LedgerServeTorture`: generates signed traffic, delivers it through crashes, and checks what survived.
@main
struct ServeTorture {
    static let usage = """
        OVERVIEW: crash-test tools for `ledger serve` (Scripts/crash-test --http, Scripts/load --real)

        USAGE: LedgerServeTorture generate --out DIR --count N [--users U]
               LedgerServeTorture send --port P --bodies FILE --acks FILE [--clients N] [--give-up S]
               LedgerServeTorture check --port P --data DIR --bodies FILE --acks FILE [--ledger BIN]
                                        [--min-distinct N]

        generate  N distinct signed webhook bodies (U users buying and renewing monthly subscriptions) as
                  DIR/notifications.jsonl, with the signing root as DIR/trust-root.der.
        send      N keep-alive clients POST every body to 127.0.0.1:P/webhooks/apple, retrying on refused or
                  broken connections and on 503 (as Apple does) until each gets 200, and append `ack LINE SEQ`
                  to the ack file after each 200. Exit 0 when every body got its 200.
        check     After the last restart: every acknowledged body is in the log of DIR at its seq, in its
                  subject's history over HTTP, and every subject's entitlement answer equals a fresh
                  `ledger state` of DIR (a few also through the `ledger` executable BIN).
        """

    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard !arguments.isEmpty, !["help", "--help", "-h"].contains(arguments[0]) else {
            printLine(usage)
            exit(arguments.isEmpty ? 64 : 0)
        }
        let command = arguments.removeFirst()
        do throws(TortureError) {
            let options = try Flags(arguments)
            switch command {
            case "generate":
                let count = try options.integer("--count")
                let generator = NotificationGenerator(
                    count: count, users: try options.integer("--users", default: max(1, (count + 23) / 24)))
                printLine(try generator.write(to: try options.string("--out")))
            case "send":
                let bodies = try NotificationFile.read(try options.string("--bodies"))
                let path = try options.string("--acks")
                let acks: AcknowledgementLog
                do { acks = try AcknowledgementLog(path: path) } catch {
                    throw TortureError("cannot open \(path) for acknowledgements: \(error.message)")
                }
                let client = CrashClient(
                    port: UInt16(try options.integer("--port")), clients: try options.integer("--clients", default: 6),
                    giveUpSeconds: Double(try options.integer("--give-up", default: 120)))
                printLine("sending \(bodies.count) bodies")
                let started = SystemClock.monotonicSeconds()
                let tally = client.deliver(bodies, acks: acks)
                let seconds = Int((SystemClock.monotonicSeconds() - started) * 10) / 10
                printLine(
                    "sent \(bodies.count) bodies with \(client.clients) clients in \(seconds) s: "
                        + "\(tally.acknowledged) acknowledged (\(tally.duplicates) as duplicates), "
                        + "\(tally.connectionErrors) refused or broken connections retried, \(tally.unavailable) 503s")
                if !tally.failures.isEmpty {
                    for failure in tally.failures.prefix(10) { printLine("FAIL \(failure)") }
                    exit(1)
                }
            case "check":
                let bodies = try NotificationFile.read(try options.string("--bodies"))
                let path = try options.string("--acks")
                let acks: [Acknowledgement]
                do { acks = try AcknowledgementLog.read(path) } catch {
                    throw TortureError("cannot read \(path): \(error.message)")
                }
                let check = DurabilityCheck(
                    port: UInt16(try options.integer("--port")), dataDirectory: try options.string("--data"),
                    ledgerExecutable: options.values["--ledger"])
                let distinct = Set(acks.map(\.seq)).count
                let wanted = try options.integer("--min-distinct", default: 0)
                guard distinct >= wanted else {
                    throw TortureError.finding("only \(distinct) distinct records were acknowledged; \(wanted) wanted")
                }
                printLine(try check.run(bodies, acks: acks))
            default:
                throw TortureError.usage("unknown command \(command); use generate, send or check")
            }
        } catch {
            printLine(error.status == 1 ? "FAIL \(error.message)" : "error: \(error.message)")
            if error.status == 64 { printLine(usage) }
            exit(error.status)
        }
    }
}

/// `--flag value` pairs.
struct Flags {
    var values: [String: String] = [:]

    init(_ arguments: [String]) throws(TortureError) {
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard flag.hasPrefix("--"), let value = rest.popFirst() else {
                throw TortureError.usage("expected --flag value, got \(flag)")
            }
            values[flag] = value
        }
    }

    func string(_ flag: String) throws(TortureError) -> String {
        guard let value = values[flag] else { throw TortureError.usage("\(flag) is required") }
        return value
    }

    func integer(_ flag: String, default fallback: Int? = nil) throws(TortureError) -> Int {
        guard let text = values[flag] else {
            if let fallback { return fallback }
            throw TortureError.usage("\(flag) is required")
        }
        guard let value = Int(text), value >= 0 else {
            throw TortureError.usage("\(flag) wants a whole number, not \(text)")
        }
        return value
    }
}
