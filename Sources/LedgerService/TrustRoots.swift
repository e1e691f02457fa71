import LedgerCrypto
import LedgerSystem

/// Trust roots are configuration, as in Apple's libraries: operators download Apple Root CA - G3 from
/// Apple's PKI page and pass it with `--trust-root` (or `$LEDGER_TRUST_ROOTS`).
public enum TrustRoots {
    /// SHA-256 fingerprint of Apple Root CA - G3, the root of App Store signing.
    public static let appleRootCAG3Fingerprint =
        "63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79"

    /// The largest certificate file read.
    static let maxFileBytes = 1 << 20

    /// Loads DER or PEM certificates from files: every certificate of a PEM file (a bundle of roots), the one
    /// of a DER file.
    public static func load(paths: [String], fileSystem: any FileSystem = PosixFileSystem()) throws(ServiceError)
        -> [X509Certificate]
    {
        var roots: [X509Certificate] = []
        for path in paths {
            let bytes: [UInt8]?
            do {
                bytes = try fileSystem.readFile(path)
            } catch {
                throw ServiceError(.configuration, "cannot read trust root \(path): \(error.message)")
            }
            guard let bytes else {
                throw ServiceError(
                    .configuration,
                    "trust root \(path) does not exist; download Apple Root CA - G3 from Apple's PKI page")
            }
            guard bytes.count <= maxFileBytes else {
                throw ServiceError(.configuration, "trust root \(path) is over 1 MiB: not a certificate")
            }
            do {
                roots += try X509Certificate.certificates(fileContents: bytes)
            } catch {
                throw ServiceError(
                    .configuration, "trust root \(path) is not a DER or PEM certificate file: \(error)")
            }
        }
        return roots
    }

    /// The paths named by `--trust-root` flags, else by `$LEDGER_TRUST_ROOTS` (colon-separated).
    public static func paths(flags: [String], environment: [String: String]) -> [String] {
        if !flags.isEmpty { return flags }
        return (environment["LEDGER_TRUST_ROOTS"] ?? "").split(separator: ":").map(String.init)
    }

    /// One line naming a root for the start-up message: its fingerprint, and whether it is Apple's.
    public static func describe(_ root: X509Certificate) -> String {
        let fingerprint = root.fingerprintDescription
        let whose = fingerprint == appleRootCAG3Fingerprint ? "Apple Root CA - G3" : "not Apple's root (test or other)"
        return "trust root \(fingerprint) (\(whose))"
    }
}
