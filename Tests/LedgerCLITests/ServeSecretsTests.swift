import LedgerHTTP
import LedgerTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The acceptance test of the tokens' sources: the real `ledger serve`, started with token files (or the admin
/// token in `$LEDGER_ADMIN_TOKEN`), answers authorised and unauthorised requests, and no token is in `LOCK`, in
/// `/proc/PID/cmdline`, in its output and access log, or in any file of its data directory.
@Suite struct ServeSecretsTests {
    @Test(arguments: [false, true])
    func serveWithTokenFilesLeavesNoTokenAnywhere(adminFromEnvironment: Bool) throws {
        let binary = try #require(ServeProcess.binary, "the ledger executable is built beside the tests")
        let workspace = Workspace()
        let base = workspace.directory.path
        // Distinct per run, so that no other text can hold them by chance.
        let suffix = String(UInt64.random(in: 1..<UInt64.max), radix: 36)
        let readToken = "r34d-\(suffix)"
        let adminToken = "adm1n-\(suffix)"
        write(base + "/read-token", readToken + "\n")
        chmod(base + "/read-token", 0o600)
        var arguments = ["serve", "--data", workspace.data, "--port", "0", "--read-token-file", base + "/read-token"]
        var environment: [String: String] = [:]
        if adminFromEnvironment {
            environment["LEDGER_ADMIN_TOKEN"] = adminToken
        } else {
            write(base + "/admin-token", adminToken + "\n")
            chmod(base + "/admin-token", 0o400)
            arguments += ["--admin-token-file", base + "/admin-token"]
        }
        let serve = try ServeProcess(
            binary, arguments + workspace.verifyFlags, environment: environment, outputIn: base)
        let port = try #require(serve.waitUntilListening(), "serve did not start: \(serve.errors)")

        let lock = ServeProcess.read(workspace.data + "/LOCK")
        var info = stat()
        #expect(stat(workspace.data + "/LOCK", &info) == 0 && info.st_mode & 0o777 == 0o600)
        let lines = lock.split(separator: "\n")
        #expect(
            lines.count == 3 && lines.first == "pid \(serve.pid)" && lines.last == "command ledger serve", "\(lock)")
        #expect(lines.count == 3 && lines[1].hasPrefix("started "), "\(lock)")
        let commandLine = ServeProcess.read("/proc/\(serve.pid)/cmdline")
        #expect(commandLine.contains("--read-token-file"))

        let client = HTTPClient(port: port, timeout: .seconds(30))
        let read: HTTPHeaders = ["Authorization": "Bearer \(readToken)"]
        let admin: HTTPHeaders = ["Authorization": "Bearer \(adminToken)"]
        let correction = Array(
            #"{"subject":{"userId":7},"action":"revoke","from":"2026-01-01T00:00:00Z","reason":"test","operator":"ci"}"#
                .utf8)
        var bodies: [String] = []
        for (method, target, headers, body, status) in [
            (HTTPMethod.get, "/v1/users/7/entitlement", read, [UInt8](), 200),
            (.get, "/v1/users/7/entitlement", HTTPHeaders(), [], 401),
            (.get, "/v1/users/7/entitlement", ["Authorization": "Bearer \(readToken)x"], [], 401),
            (.get, "/v1/users/7/entitlement?at=1&at=2", read, [], 400),
            (.post, "/v1/corrections", admin, correction, 200),
            (.post, "/v1/corrections", read, correction, 401),
            (.get, "/metrics", read, [], 200),
        ] as [(HTTPMethod, String, HTTPHeaders, [UInt8], Int)] {
            let response = try client.send(method, target, headers: headers, body: body)
            #expect(response.status.code == status, "\(method) \(target): \(response.bodyText)")
            bodies.append(response.bodyText)
        }
        #expect(serve.stop() == 0)

        let output = serve.output + serve.errors
        #expect(output.contains("\"route\":\"/v1/corrections\",\"status\":200"), "\(output)")
        let places =
            [("LOCK", lock), ("/proc/PID/cmdline", commandLine), ("the output and access log", output)]
            + bodies.map { ("a response body", $0) }
            + ServeProcess.files(under: workspace.data).map { ($0, ServeProcess.read($0)) }
        for (place, text) in places {
            #expect(!text.contains(readToken) && !text.contains(adminToken), "a token is in \(place)")
            #expect(!text.contains(suffix), "a token's tail is in \(place)")
        }
        #expect(!output.lowercased().contains("bearer"))
        #expect(!output.contains("warning: tokens") && !output.contains("readable by other users"), "\(output)")
    }

    /// A token on the command line still serves, with the warning that `ps` shows it.
    @Test func aTokenFlagServesWithAWarning() throws {
        let binary = try #require(ServeProcess.binary, "the ledger executable is built beside the tests")
        let workspace = Workspace()
        let serve = try ServeProcess(
            binary,
            ["serve", "--data", workspace.data, "--port", "0", "--read-token", "fl4g-t0ken"]
                + workspace.verifyFlags, environment: [:], outputIn: workspace.directory.path)
        let port = try #require(serve.waitUntilListening(), "serve did not start: \(serve.errors)")
        let client = HTTPClient(port: port, timeout: .seconds(30))
        let response = try client.send(.get, "/v1/users/7/entitlement", headers: ["Authorization": "Bearer fl4g-t0ken"])
        #expect(response.status == .ok)
        #expect(serve.stop() == 0)
        #expect(
            serve.errors.hasPrefix(
                "warning: tokens on the command line are visible to every user through ps; use --read-token-file or "
                    + "$LEDGER_READ_TOKEN\n"), "\(serve.errors)")
        #expect(!ServeProcess.read(workspace.data + "/LOCK").contains("fl4g-t0ken"))
        #expect(!serve.errors.contains("fl4g-t0ken"))
    }

    /// Started with SIGTERM blocked (as a test runner's thread or a careless supervisor can hand it down), serve
    /// still stops on SIGTERM and exits 0.
    @Test func serveStopsOnSIGTERMEvenWhenStartedWithItBlocked() throws {
        let binary = try #require(ServeProcess.binary, "the ledger executable is built beside the tests")
        let workspace = Workspace()
        let serve = try ServeProcess(
            binary, ["serve", "--data", workspace.data, "--port", "0"] + workspace.verifyFlags, environment: [:],
            outputIn: workspace.directory.path, blocking: [SIGTERM, SIGINT])
        #expect(serve.waitUntilListening() != nil, "serve did not start: \(serve.errors)")
        #expect(serve.stop() == 0)
        #expect(serve.errors.hasSuffix("stopped: head seq 0\n"), "\(serve.errors)")
    }
}
