/// The command line of `ledger-load`, parsed by hand (no dependencies).
struct LoadOptions {
    enum Command {
        case run, serve, hostile, help
    }

    var command = Command.help
    var host = "127.0.0.1"
    var port: UInt16 = 0
    var path = "/healthz"
    var method = "GET"
    var headers: [(String, String)] = []
    var body: [UInt8] = []
    var clients = 8
    var seconds = 10.0
    var warmup = 2.0
    var json = false
    /// For `serve`: how long the demo webhook handler blocks, imitating the log's group commit.
    var commitMicroseconds = 0
    /// For `run`: request bodies used one each, in order (`--bodies FILE`, JSON Lines); empty: `body` every time.
    var bodies: [[UInt8]] = []
    /// For `run`: where to append `ack LINE SEQ` for each 200 to a `--bodies` request.
    var acksPath: String?
    /// For `run`: replace `{n}` in the path with 1…vary, round robin (e.g. many users' entitlements).
    var vary = 0
    /// For `hostile`: the API listener's port (`--api-url`), attacked while the webhook (`--url`) is measured.
    var apiPort: UInt16 = 0
    /// For `hostile`: the server's pid, whose resident set is sampled (`--server-pid`).
    var serverPid: Int32 = 0
    /// For `hostile`: how much nicer than this process the attackers' threads run (`--attacker-niceness`, 0…19).
    var attackerNiceness: Int32 = 0

    static let usage = """
        OVERVIEW: load client for the ledger's HTTP server (requests/s and latency percentiles)

        USAGE: ledger-load run --url http://HOST:PORT/PATH [--method M] [--header 'Name: value']...
                               [--body TEXT | --body-file FILE | --body-size N | --bodies FILE [--acks FILE]]
                               [--vary N] [--clients N] [--duration S] [--warmup S] [--json]
               ledger-load serve [--host H] [--port P] [--commit-us N]
               ledger-load hostile --url http://127.0.0.1:P --api-url http://127.0.0.1:Q --bodies FILE
                               [--acks FILE] [--server-pid PID] [--header 'Name: value']... [--clients N]
                               [--duration S] [--warmup S] [--json]

        run     N keep-alive clients (one thread each) send requests back to back for --duration seconds
                after --warmup seconds; prints requests/s, p50/p90/p99/max latency, statuses, errors.
                --bodies sends each line of a JSON Lines file once (distinct notifications; the run ends
                early if they run out) and --acks appends `ack LINE SEQ` for each 200 (for a durability
                check); --vary N replaces {n} in the path with 1…N in turn.
        hostile --clients webhook clients (default 8) deliver --bodies to the webhook listener (--url) for
                --warmup seconds, then for --duration seconds (at most 120) while the API listener (--api-url)
                is attacked: 300 slow readers, 100 reconnecting slowloris, 250 heavy /v1/events readers, 300
                clients that never read (loopback only; --header goes to the API's readers). Prints webhook
                p50/p99 and 503s, /healthz p99 on the webhook listener, and the max RSS of --server-pid.
                --attacker-niceness N runs the attackers N nicer (on loopback they share the server's cores,
                which attackers elsewhere would not: 19 leaves them only idle time).
        serve   a demo server with the ledger's route shapes (POST /webhooks/apple, GET
                /v1/users/{id}/entitlement, GET /healthz, GET /metrics); --commit-us makes the webhook
                block that long, like a group commit. Prints `listening on http://HOST:PORT`; SIGTERM stops it.
        """

    /// Parses the arguments after the program name.
    static func parse(_ arguments: [String]) throws(LoadError) -> LoadOptions {
        var options = LoadOptions()
        var rest = arguments[...]
        guard let command = rest.popFirst() else { return options }
        switch command {
        case "run": options.command = .run
        case "serve": options.command = .serve
        case "hostile": options.command = .hostile
        case "help", "--help", "-h": return options
        default: throw LoadError("unknown command \(command); use run, hostile or serve")
        }
        func value(_ flag: String) throws(LoadError) -> String {
            guard let next = rest.popFirst() else { throw LoadError("\(flag) needs a value") }
            return next
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--url": try options.setURL(try value(flag))
            case "--host": options.host = try value(flag)
            case "--port": options.port = try number(try value(flag), flag)
            case "--method": options.method = try value(flag)
            case "--header":
                let text = try value(flag)
                guard let colon = text.firstIndex(of: ":") else { throw LoadError("--header wants 'Name: value'") }
                options.headers.append(
                    (String(text[..<colon]), String(text[text.index(after: colon)...].drop { $0 == " " })))
            case "--body": options.body = Array(try value(flag).utf8)
            case "--body-file": options.body = try readFile(try value(flag))
            case "--body-size": options.body = [UInt8](repeating: 0x61, count: try number(try value(flag), flag))
            case "--bodies": options.bodies = try readLines(try value(flag))
            case "--acks": options.acksPath = try value(flag)
            case "--vary": options.vary = try number(try value(flag), flag)
            case "--clients": options.clients = try number(try value(flag), flag)
            case "--duration": options.seconds = try decimal(try value(flag), flag)
            case "--warmup": options.warmup = try decimal(try value(flag), flag)
            case "--attacker-niceness":
                let text = try value(flag)
                guard let niceness = Int32(text), (0...19).contains(niceness) else {
                    throw LoadError("\(flag) is a niceness from 0 to 19, not '\(text)'")
                }
                options.attackerNiceness = niceness
            case "--commit-us": options.commitMicroseconds = try number(try value(flag), flag)
            case "--json": options.json = true
            case "--api-url":
                var api = LoadOptions()
                try api.setURL(try value(flag))
                options.apiPort = api.port
            case "--server-pid": options.serverPid = try number(try value(flag), flag)
            default: throw LoadError("unknown option \(flag)")
            }
        }
        if options.command == .run && options.port == 0 { throw LoadError("run needs --url http://HOST:PORT/PATH") }
        if options.command == .hostile && (options.port == 0 || options.apiPort == 0) {
            throw LoadError("hostile needs --url http://127.0.0.1:P (the webhook) and --api-url http://127.0.0.1:Q")
        }
        if options.clients < 1 { throw LoadError("--clients must be at least 1") }
        return options
    }

    /// Takes host, port and path from `http://HOST:PORT/PATH`.
    mutating func setURL(_ url: String) throws(LoadError) {
        guard url.hasPrefix("http://") else { throw LoadError("--url must start with http:// (TLS is not spoken)") }
        let rest = url.dropFirst(7)
        let authority = rest.prefix { $0 != "/" }
        path = rest.count > authority.count ? String(rest.dropFirst(authority.count)) : "/"
        guard let colon = authority.lastIndex(of: ":") else { throw LoadError("--url needs an explicit port") }
        host = String(authority[..<colon]).trimmingCharacters(in: "[]")
        port = try Self.number(String(authority[authority.index(after: colon)...]), "--url")
    }
}

private func decimal(_ text: String, _ flag: String) throws(LoadError) -> Double {
    guard let value = Double(text), value >= 0 else { throw LoadError("\(flag) wants seconds, not \(text)") }
    return value
}

extension LoadOptions {
    fileprivate static func number<T: FixedWidthInteger>(_ text: String, _ flag: String) throws(LoadError) -> T {
        guard let value = T(text) else { throw LoadError("\(flag) wants a whole number, not \(text)") }
        return value
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}

/// A usage or setup error of the load tool.
struct LoadError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
