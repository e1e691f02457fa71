import LedgerCrypto
import LedgerTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `ledger reconcile --from-api` over HTTPS: the fake behind a TLS front (python3's `ssl` module) with a test CA.
@Suite struct ReconcileFromAPITLSTests {
    /// The fake behind python3's TLS front, and the CA file that trusts it.
    struct TLSFront {
        let process: ServeProcess
        let url: String
        let caFile: String

        init(backend: String, in directory: String) throws {
            let tls = try TestTLS()
            caFile = directory + "/ca.pem"
            write(caFile, tls.caPEM)
            write(directory + "/server.pem", tls.certificatePEM)
            write(directory + "/server-key.pem", tls.keyPEM)
            write(directory + "/front.py", TestTLS.frontScript)
            let port = backend.split(separator: ":").last.map(String.init) ?? ""
            process = try ServeProcess(
                "/usr/bin/python3",
                [directory + "/front.py", directory + "/server.pem", directory + "/server-key.pem", port],
                environment: [:], outputIn: directory)
            var listening: String?
            for _ in 0..<500 where listening == nil {
                if let line = process.output.split(separator: "\n").first(where: { $0.hasPrefix("port ") }) {
                    listening = String(line.dropFirst(5))
                } else {
                    usleep(20_000)
                }
            }
            guard let listening else { throw SpawnFailure(message: "the TLS front did not start: \(process.errors)") }
            url = "https://127.0.0.1:\(listening)"
        }
    }

    @Test(.enabled(if: access("/usr/bin/python3", X_OK) == 0))
    func pullsThroughTLSTrustingOnlyTheGivenCA() throws {
        let items = Array(ReconcileFromAPITests.fixture.items.prefix(45))
        let space = try ReconcileFromAPITests.APIWorkspace(serving: items)
        defer { space.fake.stop() }
        let front = try TLSFront(backend: space.url, in: space.workspace.directory.path)
        defer { _ = front.process.stop() }
        space.ingest(items[0..<15])
        // Without the CA the system's store does not know the test certificate: nothing is fetched.
        let untrusted = space.reconcile(url: front.url)
        #expect(untrusted.code == 1)
        #expect(untrusted.err.contains("error: Get Notification History failed"))
        #expect(untrusted.err.contains("not trusted by the system's CA store"))
        #expect(space.fake.requestCount == 0)
        let trusted = space.reconcile(["--api-ca-file", front.caFile], url: front.url)
        #expect(trusted.code == 0, "\(trusted.err)")
        #expect(trusted.out == "{\"appended\":30,\"alreadyKnown\":15,\"rejected\":0}\n")
    }
}
