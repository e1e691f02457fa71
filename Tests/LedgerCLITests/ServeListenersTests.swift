import LedgerHTTP
import LedgerTesting
import Testing

@testable import LedgerCLI

#if canImport(Glibc)
    import Glibc
#endif

/// `ledger serve --webhook-listen HOST:PORT --api-listen HOST:PORT`: the webhook and the read API on separate
/// addresses, each with its own connections and threads, so that the API's clients never keep Apple waiting.
@Suite struct ServeListenersTests {
    /// The real `ledger serve` on two ephemeral loopback ports.
    private func startTwoListeners(_ workspace: Workspace) throws -> (ServeProcess, webhook: UInt16, api: UInt16) {
        let binary = try #require(ServeProcess.binary, "the ledger executable is built beside the tests")
        let serve = try ServeProcess(
            binary,
            ["serve", "--data", workspace.data, "--webhook-listen", "127.0.0.1:0", "--api-listen", "127.0.0.1:0"]
                + workspace.verifyFlags, environment: [:], outputIn: workspace.directory.path)
        let ports = try #require(serve.waitUntilListening(named: ["webhook", "api"]), "serve: \(serve.errors)")
        return (serve, ports["webhook"]!, ports["api"]!)
    }

    private func notification(_ workspace: Workspace, _ number: Int) throws -> [UInt8] {
        TestPKI.body(try workspace.pki.signedNotification(uuid: TestPKI.Payloads.uuid(number)))
    }

    @Test func eachListenerServesOnlyItsRoutes() throws {
        let workspace = Workspace()
        let (serve, webhookPort, apiPort) = try startTwoListeners(workspace)
        let lines = serve.output.split(separator: "\n").filter { $0.hasPrefix("listening on http://") }
        #expect(
            lines == [
                "listening on http://127.0.0.1:\(webhookPort)",
                "listening on http://127.0.0.1:\(apiPort)",
            ])
        let webhook = HTTPClient(port: webhookPort, timeout: .seconds(30))
        let api = HTTPClient(port: apiPort, timeout: .seconds(30))

        let delivered = try webhook.send(.post, "/webhooks/apple", body: try notification(workspace, 1))
        #expect(delivered.status == .ok, "\(delivered.bodyText)")
        #expect(try webhook.send(.get, "/healthz").bodyText.contains(#""head":1"#))
        for target in ["/v1/users/7/entitlement", "/v1/events?after=0", "/v1/digest", "/metrics", "/openapi.yaml"] {
            let response = try webhook.send(.get, target)
            #expect(response.status == .notFound, "webhook listener, \(target)")
            #expect(errorStatus(response) == "NOT_FOUND")
        }
        #expect(try webhook.send(.post, "/v1/corrections", body: Array("{}".utf8)).status == .notFound)

        #expect(try api.send(.get, "/healthz").bodyText.contains(#""head":1"#))
        let events = try api.send(.get, "/v1/events?after=0")
        #expect(events.status == .ok)
        #expect(events.bodyText.contains(#""next":1"#))
        #expect(try api.send(.get, "/v1/users/7/entitlement").status == .ok)
        #expect(try api.send(.get, "/openapi.yaml").status == .ok)
        #expect(try api.send(.get, "/metrics").status == .ok)
        let refused = try api.send(.post, "/webhooks/apple", body: try notification(workspace, 2))
        #expect(refused.status == .notFound, "the API listener takes no webhook")

        // SIGTERM drains and stops both.
        #expect(serve.stop() == 0)
        #expect(serve.errors.contains("stopped: head seq 1"), "\(serve.errors)")
    }

    @Test func theWebhookAnswersWhileEveryAPIConnectionIsHeld() throws {
        let workspace = Workspace()
        let (serve, webhookPort, apiPort) = try startTwoListeners(workspace)
        // 300 clients hold the API listener's connections in the middle of a request head (none idle, so none can
        // be evicted to make room): its cap is 256, and fresh API clients get 503.
        var held: [HTTPClient] = []
        for _ in 0..<300 {
            let client = HTTPClient(port: apiPort, timeout: .seconds(5))
            try client.sendRaw(Array("GET /openapi.yaml HTTP/1.1\r\n".utf8))
            held.append(client)
        }
        usleep(300_000)
        #expect(try HTTPClient(port: apiPort, timeout: .seconds(5)).send(.get, "/healthz").status.code == 503)

        let webhook = HTTPClient(port: webhookPort, timeout: .seconds(5))
        let start = SystemClockMilliseconds.now()
        #expect(try webhook.send(.get, "/healthz").status == .ok)
        #expect(SystemClockMilliseconds.now() - start < 500)
        let delivered = try webhook.send(.post, "/webhooks/apple", body: try notification(workspace, 3))
        #expect(delivered.status == .ok, "\(delivered.bodyText)")
        #expect(SystemClockMilliseconds.now() - start < 2000)
        for client in held { client.close() }
        #expect(serve.stop() == 0)
    }

    @Test(arguments: ["api", "webhook"])
    func aBusyAddressIsExit1NamingItAndOpensNothing(busy: String) throws {
        let workspace = Workspace()
        let taken = try HTTPListener(host: "127.0.0.1", port: 0)
        let webhook = busy == "webhook" ? "127.0.0.1:\(taken.port)" : "127.0.0.1:0"
        let api = busy == "api" ? "127.0.0.1:\(taken.port)" : "127.0.0.1:0"
        let result = ledger(
            ["serve", "--data", workspace.data, "--webhook-listen", webhook, "--api-listen", api]
                + workspace.verifyFlags)
        #expect(result.code == 1)
        #expect(result.err.contains("error: cannot serve on 127.0.0.1:\(taken.port): "), "\(result.err)")
        #expect(access(workspace.data, F_OK) != 0, "the data directory was created")
        #expect(!result.out.contains("listening on"))
    }

    @Test(arguments: [
        (["--webhook-listen", "127.0.0.1:8080"], "--webhook-listen and --api-listen go together"),
        (["--api-listen", "127.0.0.1:8081"], "--webhook-listen and --api-listen go together"),
        (
            ["--webhook-listen", "127.0.0.1:0", "--api-listen", "127.0.0.1:0", "--port", "8080"],
            "--host and --port name the one address"
        ),
        (
            ["--webhook-listen", "127.0.0.1", "--api-listen", "127.0.0.1:0"],
            "--webhook-listen '127.0.0.1' is not HOST:PORT"
        ),
        (
            ["--webhook-listen", "127.0.0.1:0", "--api-listen", "localhost:99999"],
            "--api-listen 'localhost:99999' is not"
        ),
        (["--webhook-listen", "::1:80", "--api-listen", "127.0.0.1:0"], "--webhook-listen '::1:80' is not HOST:PORT"),
    ])
    func badListenFlagsAreUsageErrors(flags: [String], message: String) throws {
        let workspace = Workspace()
        let result = ledger(["serve", "--data", workspace.data] + flags + workspace.verifyFlags)
        #expect(result.code == 64)
        #expect(result.err.contains("error: \(message)"), "\(result.err)")
        #expect(access(workspace.data, F_OK) != 0)
    }

    @Test func addressesParseWithIPv6Brackets() throws {
        #expect(try ServeListeners.parse("[::1]:8081", flag: "--api-listen") == ("::1", 8081))
        #expect(try ServeListeners.parse("0.0.0.0:443", flag: "--webhook-listen") == ("0.0.0.0", 443))
        #expect(try ServeListeners.parse("localhost:0", flag: "--api-listen") == ("localhost", 0))
    }
}

/// The `status` of a JSON error body.
private func errorStatus(_ response: HTTPResponse) -> String? {
    let text = response.bodyText
    guard let range = text.firstRange(of: #"{"error":{"status":""#) else { return nil }
    let rest = text[range.upperBound...]
    return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
}

/// Milliseconds on the monotonic clock.
private enum SystemClockMilliseconds {
    static func now() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
    }
}
