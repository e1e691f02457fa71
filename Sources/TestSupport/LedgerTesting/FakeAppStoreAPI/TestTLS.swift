import LedgerAppStore
import LedgerCrypto
import LedgerSystem

/// A throwaway TLS identity for loopback tests: a CA and a server certificate for `127.0.0.1` and `localhost`
/// it signed, as PEM (what `--api-ca-file` and a TLS front read).
public struct TestTLS: Sendable {
    /// The CA certificate, PEM.
    public let caPEM: String
    /// The server certificate, PEM.
    public let certificatePEM: String
    /// The server's private key, PEM (PKCS#8).
    public let keyPEM: String

    /// Generates a CA and a server certificate valid from an hour ago for a day.
    public init() throws(CryptoError) {
        let now = SystemClock.wallMilliseconds()
        let validity = (now - 3_600_000, now + 86_400_000)
        let caKey = try ECPrivateKey(generating: .p256)
        var ca = CertificateBuilder(
            subject: DistinguishedName(commonName: "ledger test CA"), publicKey: caKey.publicKey,
            notBefore: validity.0, notAfter: validity.1)
        ca.isCA = true
        ca.keyUsage = [.keyCertSign, .cRLSign]
        let caCertificate = try ca.selfSigned(with: caKey, digest: .sha256)
        let serverKey = try ECPrivateKey(generating: .p256)
        var server = CertificateBuilder(
            subject: DistinguishedName(commonName: "127.0.0.1"), publicKey: serverKey.publicKey,
            notBefore: validity.0, notAfter: validity.1)
        server.keyUsage = [.digitalSignature]
        server.extensions = [
            .init("subjectAltName", "IP:127.0.0.1,DNS:localhost", isCritical: false),
            .init("extendedKeyUsage", "serverAuth", isCritical: false),
        ]
        let serverCertificate = try server.signed(by: caCertificate, key: caKey, digest: .sha256)
        caPEM = Self.pem(caCertificate.derRepresentation)
        certificatePEM = Self.pem(serverCertificate.derRepresentation)
        keyPEM = serverKey.pemRepresentation
    }

    /// DER as a PEM `CERTIFICATE` block.
    static func pem(_ der: [UInt8]) -> String {
        let text = Base64.encode(der)
        var lines: [String] = []
        var index = text.startIndex
        while index < text.endIndex {
            let end = text.index(index, offsetBy: 64, limitedBy: text.endIndex) ?? text.endIndex
            lines.append(String(text[index..<end]))
            index = end
        }
        return "-----BEGIN CERTIFICATE-----\n" + lines.joined(separator: "\n") + "\n-----END CERTIFICATE-----\n"
    }

    /// A Python 3 TLS front (python3's `ssl` module): `python3 SCRIPT CERT KEY BACKEND_PORT` listens on a free
    /// loopback port, prints `port N`, and relays each TLS connection to the plain-HTTP backend.
    public static let frontScript = """
        import socket, ssl, sys, threading
        cert, key, backend = sys.argv[1], sys.argv[2], int(sys.argv[3])
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        print("port", listener.getsockname()[1], flush=True)
        def relay(source, target):
            try:
                while True:
                    data = source.recv(65536)
                    if not data:
                        break
                    target.sendall(data)
            except Exception:
                pass
            for end in (source, target):
                try:
                    end.close()
                except Exception:
                    pass
        def handle(raw):
            try:
                tls = context.wrap_socket(raw, server_side=True)
            except Exception:
                raw.close()
                return
            upstream = socket.create_connection(("127.0.0.1", backend))
            threading.Thread(target=relay, args=(upstream, tls), daemon=True).start()
            relay(tls, upstream)
        while True:
            connection, _ = listener.accept()
            threading.Thread(target=handle, args=(connection,), daemon=True).start()
        """
}
