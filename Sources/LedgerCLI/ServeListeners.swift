import LedgerAPI
import LedgerHTTP

/// The addresses `ledger serve` listens on: one for every route (`--host`, `--port`), or the webhook and the read
/// API apart (`--webhook-listen HOST:PORT`, `--api-listen HOST:PORT`), each with its own connections and threads,
/// so that clients of the API can never keep Apple's deliveries waiting.
struct ServeListeners {
    /// One address to bind and the routes it serves.
    struct Address {
        var host: String
        var port: UInt16
        var surface: LedgerAPI.Surface
        /// The server's name in `listening on …` lines and 503 messages; nil when it is the only one.
        var name: String?

        /// `HOST:PORT`, IPv6 hosts in brackets.
        var text: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// The addresses, in the order they are bound and announced (the webhook's first).
    var addresses: [Address]

    /// The addresses the command line asks for.
    ///
    /// - Throws: ``CLIError`` (usage) when only one of the two listen flags is given, when they are mixed with
    ///   `--host`/`--port`, or when an address is not `HOST:PORT`.
    static func resolve(_ context: CommandContext) throws(CLIError) -> ServeListeners {
        let webhook = try context.value(ServeCommand.webhookListen)
        let api = try context.value(ServeCommand.apiListen)
        guard webhook != nil || api != nil else {
            let host = try context.value(ServeCommand.host) ?? "127.0.0.1"
            let port = try context.integer(ServeCommand.port, in: 0...65535) ?? 8080
            return ServeListeners(addresses: [Address(host: host, port: UInt16(port), surface: .all, name: nil)])
        }
        guard let webhook, let api else {
            throw CLIError.usage(
                "--webhook-listen and --api-listen go together: give both (or neither, for one address)",
                command: "serve")
        }
        let givesHost = try context.has(ServeCommand.host)
        let givesPort = try context.has(ServeCommand.port)
        if givesHost || givesPort {
            throw CLIError.usage(
                "--host and --port name the one address of every route; with --webhook-listen and --api-listen, "
                    + "leave them out", command: "serve")
        }
        let webhookAddress = try parse(webhook, flag: ServeCommand.webhookListen.name)
        let apiAddress = try parse(api, flag: ServeCommand.apiListen.name)
        return ServeListeners(addresses: [
            Address(host: webhookAddress.host, port: webhookAddress.port, surface: .webhook, name: "webhook"),
            Address(host: apiAddress.host, port: apiAddress.port, surface: .api, name: "api"),
        ])
    }

    /// `HOST:PORT` (`[::1]:8080` for IPv6) → host and port.
    static func parse(_ text: String, flag: String) throws(CLIError) -> (host: String, port: UInt16) {
        let invalid = CLIError.usage(
            "\(flag) '\(text)' is not HOST:PORT (e.g. 127.0.0.1:8080, [::1]:8080; port 0 to 65535)",
            command: "serve")
        guard let colon = text.lastIndex(of: ":") else { throw invalid }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        if host.hasPrefix("[") && host.hasSuffix("]") && host.count > 2 {
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") || host.contains("[") || host.contains("]") {
            throw invalid
        }
        guard !host.isEmpty, !portText.isEmpty, portText.utf8.count <= 5,
            portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let port = UInt16(portText)
        else { throw invalid }
        return (host, port)
    }

    /// Binds every address, the webhook's first; none is left open when one fails.
    ///
    /// - Throws: ``CLIError`` (failure, exit 1) naming the address that could not be bound.
    func bind() throws(CLIError) -> [HTTPListener] {
        var listeners: [HTTPListener] = []
        for address in addresses {
            do {
                listeners.append(try HTTPListener(host: address.host, port: address.port))
            } catch {
                // The listeners bound so far close as they are released.
                throw CLIError.failure("cannot serve on \(address.text): \(error.message)")
            }
        }
        return listeners
    }
}
